"""The sphere's geometry: where a ball is from its outline, and its surface laid flat.

A QR wrapped on a 40 mm ball defeats decoders on the raw frame: the curvature bends its grid.
Knowing the ball's size and the camera's field of view, the ball's outline gives its centre in
3-D (`sphere_fit`); every point of the visible surface then maps to the camera, and `unroll`
lays the surface around any point flat, keeping distances from it, as a sticker pressed onto
the ball does.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from .find import Circle

DEFAULT_FOV = 62.2                 # degrees across the frame's width (Raspberry Pi camera v2)


@dataclass(frozen=True)
class View:
    """A pinhole camera: focal length and principal point in pixels of the full frame."""
    focal: float
    cx: float
    cy: float

    @classmethod
    def of(cls, width: int, height: int, fov: float = DEFAULT_FOV) -> "View":
        return cls(width / 2 / math.tan(math.radians(fov) / 2), width / 2, height / 2)


def ball_centre(c: Circle, view: View, radius: float) -> np.ndarray:
    """The ball's centre (mm, camera coordinates) from its outline. Off the optical axis a sphere
    images as an ellipse whose centre lies outward of the centre's image; undo both effects."""
    dx, dy = (c.x - view.cx) / view.focal, (c.y - view.cy) / view.focal
    rho_e = math.hypot(dx, dy)                  # the outline centre's distance from the axis (tan units)
    b = c.r / view.focal
    theta = math.atan(rho_e)
    for _ in range(3):
        cos_t = math.cos(theta)
        sin_a = min(b * cos_t / math.sqrt(1 + b * b), 0.99)
        alpha = math.asin(sin_a)
        # the outline spans theta-alpha .. theta+alpha; its centre is halfway between their images
        mid = (math.tan(theta + alpha) + math.tan(theta - alpha)) / 2
        theta += math.atan(rho_e) - math.atan(mid)
    distance = radius / sin_a
    direction = np.array([math.sin(theta) * dx / rho_e if rho_e else 0.0,
                          math.sin(theta) * dy / rho_e if rho_e else 0.0, math.cos(theta)])
    return direction * distance


def sphere_fit(rim: np.ndarray, view: View, radius: float, origin=(0, 0)) -> np.ndarray | None:
    """The ball's centre from points on its outline: each is seen along a ray grazing the ball,
    at the same angle alpha from the centre's direction c, so ray . (c / cos alpha) = 1 for all
    of them: linear least squares, exact under perspective and fine with the frame's edge
    cutting the ball off. Points far off the fit (print at a dark rim, glare) are dropped."""
    if rim is None or len(rim) < 12:
        return None
    rays = np.stack([(rim[:, 0] + origin[0] - view.cx) / view.focal,
                     (rim[:, 1] + origin[1] - view.cy) / view.focal, np.ones(len(rim))], -1)
    rays /= np.linalg.norm(rays, axis=1, keepdims=True)
    keep = np.ones(len(rays), bool)
    for _ in range(3):
        w = np.linalg.lstsq(rays[keep], np.ones(int(keep.sum())), rcond=None)[0]
        norm = np.linalg.norm(w)
        if norm <= 1:
            return None
        c, alpha = w / norm, math.acos(1 / norm)
        off = np.arccos(np.clip(rays @ c, -1, 1)) - alpha          # radians outside (+) or inside (-)
        spread = 1.4826 * np.median(np.abs(off[keep])) + 1e-4
        new = np.abs(off) < 3 * spread
        if new.sum() < 12 or (new == keep).all():
            break
        keep = new
    return c * radius / math.sin(alpha)


def _basis(normal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Axes (x, then y down) of the flat image around outward `normal`. e1 x e2 points into the
    ball, as a camera's x x y points away from it: the label comes out as printed, not mirrored."""
    helper = np.array([0.0, 1.0, 0.0]) if abs(normal[1]) < 0.9 else np.array([1.0, 0.0, 0.0])
    e1 = np.cross(helper, normal)
    e1 /= np.linalg.norm(e1)
    return e1, np.cross(e1, normal)


@lru_cache(maxsize=64)
def _grid(size: int, half_angle: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For an unrolled square of `size` px spanning +-half_angle (radians of arc): each pixel's
    cos(rho), sin(rho)cos(phi), sin(rho)sin(phi) about the unrolling centre."""
    s = (np.arange(size, dtype=np.float32) + 0.5) / size * 2 - 1
    x, y = np.meshgrid(s * half_angle, s * half_angle)
    rho = np.hypot(x, y)
    safe = np.where(rho > 0, rho, 1)
    return (np.cos(rho).astype(np.float32), (np.sin(rho) * x / safe).astype(np.float32),
            (np.sin(rho) * y / safe).astype(np.float32))


def unrolled_size(half_mm: float, px_per_mm: float) -> int:
    """The side in pixels of what unroll() lays flat: a multiple of 8 (few sizes, so the grids are reused)."""
    return max(int(round(2 * half_mm * px_per_mm / 8)) * 8, 8)


def unroll(gray: np.ndarray, view: View, centre: np.ndarray, radius: float, normal: np.ndarray,
           half_mm: float, px_per_mm: float, origin=(0, 0), fill: int = 128) -> tuple[np.ndarray, tuple]:
    """The ball's surface around `normal` laid flat, distances from that point kept (the way a
    sticker lies on the ball). `origin` is where `gray` sits in the full frame (the ROI's corner);
    the far side of the ball, which the camera cannot see, comes out as `fill`.
    Returns the image and its frame (normal, e1, e2) for mapping points back onto the ball."""
    size = unrolled_size(half_mm, px_per_mm)
    cos_r, sc, ss = _grid(size, round(half_mm / radius, 4))
    e1, e2 = _basis(normal)
    # each pixel's outward normal m, and its point on the ball, centre + radius * m
    m = [float(normal[i]) * cos_r + float(e1[i]) * sc + float(e2[i]) * ss for i in range(3)]
    cx, cy, cz = (float(v) for v in centre)
    r = float(radius)
    x, y, z = cx + r * m[0], cy + r * m[1], np.maximum(cz + r * m[2], 1e-3)
    hidden = (m[0] * cx + m[1] * cy + m[2] * cz) > -r          # facing away from the camera
    f = float(view.focal)
    map_x = f * x / z + float(view.cx - origin[0])
    map_y = f * y / z + float(view.cy - origin[1])
    map_x[hidden] = -1e4
    flat = cv2.remap(gray, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=fill)
    return flat, (normal, e1, e2)


def point_on_ball(frame: tuple, x_px: float, y_px: float, size: int, half_mm: float, radius: float) -> np.ndarray:
    """The outward normal at a pixel of an unrolled image."""
    normal, e1, e2 = frame
    x = ((x_px + 0.5) / size * 2 - 1) * half_mm / radius
    y = ((y_px + 0.5) / size * 2 - 1) * half_mm / radius
    rho = math.hypot(x, y)
    if rho == 0:
        return normal
    return math.cos(rho) * normal + math.sin(rho) * (x / rho * e1 + y / rho * e2)

