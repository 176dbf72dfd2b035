"""Synthetic camera frames of labelled balls, with ground truth: the corpus and the bench.

A real sphere rendering: a pinhole camera (640x480, 62 degrees wide like the Pi camera v2),
rays cast onto a ball of the stated diameter carrying the stickers as printed (vision.sim.ball_sheet:
cut from the rasterised PDF of `companion print balls`; each wrapped on the sphere keeping
distances from its centre, seen from outside the right way round),
diffuse and specular light (glare), then what a camera adds: motion blur (sub-frames
across the exposure, so a spinning, falling ball smears as it really does), defocus,
exposure, gamma, shot and read noise, JPEG. Frames with no ball come from the same passes.
Each pass draws its look at random: light or white balls, matte sticker paper or (a third of
passes) glossy stickers that glare, 1 in 20 label sets printed light-on-dark, the light 5-45
degrees off the camera's axis, exposure, gamma, noise, focus, JPEG quality.

Passes (all in mm, seconds):
- cradle: the ball rolls into a cradle under the camera and rocks to rest (damped swing);
  it rolls, so it turns as it moves.
- chute: the ball runs down a 30 degree chute that crosses the frame 20-40 degrees off its
  long side (the camera mounted roughly along it), entering at 0.6-1.3 m/s and speeding up,
  turning at up to its rolling rate about any axis (it bounces off the walls). It is shot at
  1/250 s, so each frame smears it by 8-15 px along the fall direction (a ball at 1-2 m/s):
  the frame is rendered sharp and the ball's light is smeared with a line kernel of a random
  length in that range, along the fall direction give or take a few degrees, before the
  sensor adds its noise.
"""
from __future__ import annotations

import math
import zlib
from dataclasses import dataclass, field

import cv2
import numpy as np

from .. import ball_labels as labels
from . import ball_sheet

WIDTH, HEIGHT, FOV = 640, 480, 62.2
# The rig the corpus assumes (README): a matte black cradle and chute, lit brightly from beside
# the camera, the camera focused at calibration. Distances camera to ball centre, mm; s; mm/s.
CRADLE_DEPTH = (85, 105)           # the ball 205-255 px across
CRADLE_EXPOSURE = (0.0005, 0.002)
CRADLE_SECONDS = (0.7, 0.9)        # from rolling in to the end of the pass
CHUTE_DEPTH = (110, 125)           # the ball 170-195 px across; the frame's long side along the chute
RIG_DISTANCE = (80.0, 130.0)       # what [camera] ball_distance says for this rig
CHUTE_EXPOSURE = 1e-5             # passes are rendered sharp: the streak below is their motion blur
CHUTE_FRAME_EXPOSURE = (0.00015, 0.0005)   # single frames: a bright light, rendered blur up to ~7 px
CHUTE_STREAK_PX = (8.0, 15.0)      # a 1/250 s exposure of a ball at 1-2 m/s, at this distance
CHUTE_STREAK_JITTER_DEG = 3.0      # the streak's direction off the fall direction (sd)
CHUTE_TILT_DEG = (20.0, 40.0)      # the chute's angle to the frame's long side, either way
CHUTE_SPEED = (600, 1300)          # entering the view
CHUTE_ACCEL = 3500                 # rolling down a 30 degree chute: 5/7 g sin 30
TEXTURE_PX_PER_MM = ball_sheet.PX_PER_MM
# Stickers that are not ball labels, printed on a ball-like sticker (the bench's forged balls):
# texts one check digit off, and the near-labels that look most like a real label to the matcher
# (`PB8817` shares most of ball 17's modules), and plain other text.
FORGED = {**{b: f"PB{b:02d}{(int(labels.check_digits(b)) + 1) % 100:02d}" for b in labels.BALLS},
          17: "PB8817", 27: "PB0122", 6: "PB2881", 15: "PB1151", 19: "PB5516", 22: "PB9809",
          3: "HELLO", 8: "BALL 8"}
PLATES = 2                         # noisy versions of the empty scene made per pass
PAPER, INK = 0.82, 0.05            # sticker albedo (white paper, black toner)
# (kind, frames a second) of the passes a corpus or a bench draws, in turn
PASS_KINDS = (("cradle", 30), ("cradle", 60), ("chute", 30), ("chute", 60))


def seed_for(seed: int, name: str) -> int:
    """The seed of one pass or frame, named within a run's seed."""
    return seed * 1_000_003 + zlib.crc32(name.encode())


@dataclass(frozen=True)
class Camera:
    width: int = WIDTH
    height: int = HEIGHT
    fov: float = FOV                # horizontal, degrees

    @property
    def focal(self) -> float:
        return self.width / 2 / math.tan(math.radians(self.fov) / 2)

    @property
    def centre(self) -> tuple[float, float]:
        return self.width / 2, self.height / 2

    def project(self, p: np.ndarray) -> np.ndarray:
        f, (cx, cy) = self.focal, self.centre
        return np.stack([f * p[..., 0] / p[..., 2] + cx, f * p[..., 1] / p[..., 2] + cy], -1)


def rotation(axis, angle: float) -> np.ndarray:
    axis = np.asarray(axis, float)
    axis = axis / (np.linalg.norm(axis) or 1.0)
    return cv2.Rodrigues((axis * angle).reshape(3, 1))[0]


def random_rotation(rng: np.random.Generator) -> np.ndarray:
    q = rng.normal(size=4)
    q /= np.linalg.norm(q)
    w, x, y, z = q
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


@dataclass
class Look:
    """How one pass looks: fixed for its frames."""
    ball: int
    inverted: bool
    body: np.ndarray              # ball colour (BGR albedo)
    light: np.ndarray             # direction towards the light (camera coordinates)
    gloss: float                  # the stickers' specular strength: > ~0.6 saturates a glare spot
    body_gloss: float             # the ball's own (plastic balls shine)
    shininess: float              # larger: a smaller, sharper highlight (a compact light)
    gain: float                   # exposure
    gamma: float
    noise: float                  # read noise, in 8-bit levels
    defocus: float                # Gaussian sigma, px
    jpeg: int
    exposure: float               # seconds
    background: np.ndarray        # HxWx3 float radiance
    spins: np.ndarray             # each sticker's turn about its centre (radians)
    seed: int = 0                 # for what is made once per pass (noise, the empty scene)
    cache: dict = field(default_factory=dict, repr=False)   # per-pass sensor work, done once
    forged: bool = False          # its stickers' QR holds FORGED[ball], not the ball's label
    mirrored: bool = False        # its stickers are stuck on mirrored (printed on film, stuck face down)


@dataclass
class Pose:
    """Where the ball is (centre, mm, camera coordinates) and how it is turned, over time."""
    kind: str
    centre0: np.ndarray
    rot0: np.ndarray
    params: dict = field(default_factory=dict)

    def at(self, t: float) -> tuple[np.ndarray, np.ndarray]:
        p = self.params
        if self.kind == "still":
            return self.centre0, self.rot0
        if self.kind == "cradle":
            # damped swing into the cradle; rolling turns the ball by distance / radius
            x = p["x0"] * math.exp(-p["gamma"] * t) * math.cos(p["omega"] * t)
            centre = self.centre0 + p["dir"] * x
            return centre, rotation(p["axis"], (x - p["x0"]) / p["radius"]) @ self.rot0
        if self.kind == "chute":
            s = p["v0"] * t + 0.5 * p["accel"] * t * t
            return self.centre0 + p["dir"] * s, rotation(p["spin_axis"], p["spin"] * t) @ self.rot0
        raise ValueError(self.kind)


def random_look(rng: np.random.Generator, ball: int, camera: Camera, exposure: float, seed: int = 0) -> Look:
    hue = rng.uniform(0, 180)
    body = cv2.cvtColor(np.uint8([[[hue, rng.uniform(40, 150), 255]]]), cv2.COLOR_HSV2BGR)[0, 0] / 255 * 0.8
    if rng.random() < 0.25:
        body = np.full(3, rng.uniform(0.6, 0.8))           # white balls
    tilt, turn = math.radians(rng.uniform(5, 45)), rng.uniform(0, 2 * math.pi)
    light = np.array([math.sin(tilt) * math.cos(turn), math.sin(tilt) * math.sin(turn), -math.cos(tilt)])
    return Look(ball=ball, inverted=bool(rng.random() < 0.05), body=body, light=light,
                # matte sticker paper mostly; a third glossy (laminated or vinyl) stickers that glare
                gloss=float(rng.uniform(0.0, 0.1) if rng.random() < 0.65 else rng.uniform(0.3, 1.5)),
                body_gloss=float(rng.uniform(0.2, 1.5)),
                shininess=float(np.exp(rng.uniform(np.log(40), np.log(400)))), gain=float(rng.uniform(0.55, 1.5)),
                gamma=float(rng.uniform(0.8, 1.2)), noise=float(rng.uniform(1.0, 5.0)),
                defocus=float(rng.uniform(0.3, 0.8)), jpeg=int(rng.integers(55, 96)), exposure=exposure,
                background=background(rng, camera), spins=rng.uniform(0, 2 * math.pi, labels.COPIES), seed=seed)


def background(rng: np.random.Generator, camera: Camera) -> np.ndarray:
    """A dark matte surround (the cradle or chute is painted black), uneven light, some texture:
    all of it smooth, so it is made at an eighth of the size and enlarged."""
    h, w = camera.height // 8, camera.width // 8
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    gx, gy = rng.uniform(-1, 1, 2) / max(w, h)
    base = rng.uniform(0.005, 0.04) * (1 + 0.5 * (gx * (xx - w / 2) + gy * (yy - h / 2)))
    small = rng.normal(0, 1, (h // 5 + 2, w // 5 + 2)).astype(np.float32)
    texture = cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC) * base * rng.uniform(0.1, 0.4)
    tint = rng.uniform(0.8, 1.2, 3).astype(np.float32)
    image = np.clip((base + texture)[..., None] * tint, 0, 1).astype(np.float32)
    return cv2.resize(image, (camera.width, camera.height), interpolation=cv2.INTER_LINEAR)


class Renderer:
    """Renders one ball design; textures and the sticker frames are computed once."""

    def __init__(self, design: labels.Design = labels.Design(), camera: Camera = Camera()):
        self.design, self.camera = design, camera
        self._textures: dict[tuple[int, bool], np.ndarray] = {}
        centres = labels.copies()
        helper = np.where(np.abs(centres[:, 2:3]) > 0.9, [[1.0, 0, 0]], [[0, 0, 1.0]])
        e1 = np.cross(helper, centres)
        e1 /= np.linalg.norm(e1, axis=1, keepdims=True)
        # e1 x e2 points into the ball: seen from outside, the sticker's x runs along e1 and its
        # y (down) along e2 the way a camera's image axes do, so it reads the right way round
        self.centres, self.e1, self.e2 = centres.astype(np.float32), e1, np.cross(e1, centres)

    def texture(self, ball: int, inverted: bool, forged: bool = False, mirrored: bool = False) -> np.ndarray:
        key = (ball, inverted, forged, mirrored)
        if key not in self._textures:
            sheet = ball_sheet.printed(self.design, inverted, tuple(sorted(FORGED.items())) if forged else ())
            image = sheet["stickers"][ball].astype(np.float32) / 255
            if mirrored:
                image = np.ascontiguousarray(image[:, ::-1])
            # a little pre-blur stands in for mip-mapping when the texture is minified
            self._textures[key] = cv2.GaussianBlur(INK + (PAPER - INK) * image, (0, 0), 1.2)
        return self._textures[key]

    def rays(self) -> np.ndarray:
        """Unit ray directions through every pixel centre (H x W x 3), computed once."""
        if getattr(self, "_rays", None) is None:
            cam = self.camera
            f, (cx, cy) = cam.focal, cam.centre
            yy, xx = np.mgrid[0:cam.height, 0:cam.width].astype(np.float32)
            d = np.stack([(xx + 0.5 - cx) / f, (yy + 0.5 - cy) / f, np.ones_like(xx)], -1)
            self._rays = d / np.linalg.norm(d, axis=-1, keepdims=True)
        return self._rays

    def radiance(self, look: Look, centre: np.ndarray, rot: np.ndarray):
        """The lit ball: (y0, x0, hit mask over its box, radiance of the hit pixels) or None if unseen."""
        cam, radius = self.camera, self.design.radius
        if centre[2] <= radius:
            return None
        u0, v0 = cam.project(centre)
        r_px = cam.focal * radius / math.sqrt(max(centre[2] ** 2 - radius ** 2, 1e-6)) * 1.1 + 2
        x0, x1 = int(max(0, u0 - r_px)), int(min(cam.width, u0 + r_px + 1))
        y0, y1 = int(max(0, v0 - r_px)), int(min(cam.height, v0 + r_px + 1))
        if x0 >= x1 or y0 >= y1:
            return None
        d = self.rays()[y0:y1, x0:x1]
        c = centre.astype(np.float32)
        b = d[..., 0] * c[0] + d[..., 1] * c[1] + d[..., 2] * c[2]
        disc = b * b - (c @ c - radius * radius)
        hit = disc > 0
        if not hit.any():
            return None
        d = d[hit]
        t = b[hit] - np.sqrt(disc[hit])
        n_world = (d * t[:, None] - c) / radius
        n_ball = _times(n_world, rot)                # rot maps ball -> camera, so this is rot.T @ n
        albedo, on_sticker = self._albedo(look, n_ball)
        diffuse = np.clip(_times(n_world, look.light[:, None])[:, 0], 0, 1) * 0.85 + 0.15
        half = look.light - d
        half /= np.linalg.norm(half, axis=-1, keepdims=True)
        gloss = np.where(on_sticker, np.float32(look.gloss), np.float32(look.body_gloss))
        spec = gloss * np.clip(np.einsum("ij,ij->i", n_world, half), 0, 1) ** look.shininess
        return y0, x0, hit, albedo * diffuse[:, None] + spec[:, None]

    def _albedo(self, look: Look, n: np.ndarray) -> np.ndarray:
        e1, e2 = self._bases(look)
        dots = _times(n, self.centres.T)
        k = np.argmax(dots, axis=1)
        cos_rho = np.clip(np.take_along_axis(dots, k[:, None], 1)[:, 0], -1, 1)
        a = np.einsum("ij,ij->i", n, e1[k])
        b = np.einsum("ij,ij->i", n, e2[k])
        # mm on the flat sticker: a sticker pressed onto the ball keeps distances from its centre
        scale = np.float32(self.design.radius) * np.arccos(cos_rho) / np.maximum(np.sqrt(a * a + b * b), 1e-9)
        x, y = a * scale, b * scale
        tex = self.texture(look.ball, look.inverted, look.forged, look.mirrored)
        ppm, half = TEXTURE_PX_PER_MM, tex.shape[0] / 2
        grey = _sample(tex, x * ppm + half, y * ppm + half)
        on_sticker = (x * x + y * y) <= (self.design.sticker / 2) ** 2
        return np.where(on_sticker[:, None], grey[:, None], look.body[None, :].astype(np.float32)), on_sticker

    def _bases(self, look: Look) -> tuple[np.ndarray, np.ndarray]:
        """Each sticker's in-plane axes, turned as it was stuck on."""
        if "bases" not in look.cache:
            c, s = np.cos(look.spins)[:, None], np.sin(look.spins)[:, None]
            look.cache["bases"] = ((c * self.e1 + s * self.e2).astype(np.float32),
                                   (c * self.e2 - s * self.e1).astype(np.float32))
        return look.cache["bases"]

    def frame(self, look: Look, pose: Pose | None, t: float, rng: np.random.Generator,
              encode: bool = True, others: list[tuple[Look, Pose]] = (),
              streak: tuple[float, float] | None = None) -> tuple[np.ndarray, bytes | None, bool]:
        """One camera frame exposed from t to t + exposure: (BGR image, JPEG bytes, ball visible).
        `others`: more balls in view (their own look for texture and colour), placed apart.
        `streak` (length px, direction radians in the image): the ball's light smeared along
        that line before the sensor, the motion blur of an exposure longer than `look.exposure`."""
        balls = ([(look, pose)] if pose else []) + list(others)
        steps = max([self._substeps(look, p, t) for _, p in balls] or [1])
        visible = pose is not None and self.visible(look, pose, t)
        box = None
        draws = []
        for i in range(steps if balls else 0):
            for own, p in balls:
                centre, rot = p.at(t + look.exposure * (i + 0.5) / steps)
                drawn = self.radiance(own, centre, rot)
                if drawn is None:
                    continue
                draws.append(drawn)
                y0, x0, hit, _ = drawn
                y1, x1 = y0 + hit.shape[0], x0 + hit.shape[1]
                box = (y0, x0, y1, x1) if box is None else \
                    (min(box[0], y0), min(box[1], x0), max(box[2], y1), max(box[3], x1))
        image = self._plate(look, rng).copy()
        if box is not None:
            m = int(3 * look.defocus + 2) + (int(streak[0] / 2) + 2 if streak else 0)
            y0, x0 = max(box[0] - m, 0), max(box[1] - m, 0)
            y1, x1 = box[2] + m, box[3] + m
            bg = look.background[y0:y1, x0:x1]
            patch = bg.copy()
            for dy, dx, hit, values in draws:        # sub-frames average: motion blur
                h, w = hit.shape
                area = patch[dy - y0:dy - y0 + h, dx - x0:dx - x0 + w]
                area[hit] += (values - bg[dy - y0:dy - y0 + h, dx - x0:dx - x0 + w][hit]) / steps
            if streak:
                patch = cv2.filter2D(patch, -1, streak_kernel(*streak), borderType=cv2.BORDER_REFLECT)
            patch = cv2.GaussianBlur(patch, (0, 0), look.defocus)       # defocus
            image[y0:y1, x0:x1] = self._expose(patch, look, rng)
        if not encode:
            return image, None, visible
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, look.jpeg])
        return cv2.imdecode(data, cv2.IMREAD_COLOR), data.tobytes(), visible

    # the sensor: exposure, an sRGB-like curve, read and shot noise, 8 bits
    def _expose(self, radiance: np.ndarray, look: Look, rng: np.random.Generator) -> np.ndarray:
        linear = np.minimum(radiance * np.float32(look.gain), np.float32(1.0))
        levels = cv2.pow(linear, 1 / (2.2 * look.gamma)) * np.float32(255)
        std = cv2.sqrt(levels * np.float32(0.25) + np.float32(look.noise ** 2))
        h, w, _ = levels.shape
        oy, ox = rng.integers(0, 64, 2)
        noise = self._noise_bank(look, rng)[oy:oy + h, ox:ox + w]
        return cv2.add(levels, noise * std, dtype=cv2.CV_8U)

    def _noise_bank(self, look: Look, rng: np.random.Generator) -> np.ndarray:
        if "noise" not in look.cache:
            bank = np.empty((self.camera.height + 64, self.camera.width + 64, 3), np.float32)
            cv2.setRNGSeed(look.seed % (2 ** 31))
            cv2.randn(bank, 0.0, 1.0)
            look.cache["noise"] = bank
        return look.cache["noise"]

    def _plate(self, look: Look, rng: np.random.Generator) -> np.ndarray:
        """The empty scene as the sensor sees it: a few noisy versions made once per pass (the
        ball's own patch gets fresh noise every frame)."""
        if "plates" not in look.cache:
            own = np.random.default_rng([look.seed, 4])
            look.cache["plates"] = [self._expose(look.background, look, own) for _ in range(PLATES)]
        return look.cache["plates"][int(rng.integers(PLATES))]

    def visible(self, look: Look, pose: Pose, t: float) -> bool:
        """Some of the ball is in the frame during the exposure starting at t."""
        return any(self.in_view(pose.at(t + look.exposure * k / 2)[0]) for k in range(3))

    def in_view(self, centre: np.ndarray) -> bool:
        """Some of the ball is inside the frame."""
        u, v = self.camera.project(centre)
        r = self.camera.focal * self.design.radius / centre[2]
        return -r < u < self.camera.width + r and -r < v < self.camera.height + r

    def blur_px(self, look: Look, pose: Pose, t: float) -> float:
        """How far (px) the ball's surface facing the camera moves during the exposure at t: its
        travel plus its turn at the surface, the motion blur a label suffers."""
        (c0, r0), (c1, r1) = pose.at(t), pose.at(t + look.exposure)
        turn = math.acos(np.clip((np.trace(r1 @ r0.T) - 1) / 2, -1, 1)) * self.design.radius
        return float((np.linalg.norm(c1 - c0) + turn) * self.camera.focal / c0[2])

    def _substeps(self, look: Look, pose: Pose, t: float) -> int:
        return int(np.clip(math.ceil(self.blur_px(look, pose, t) / 2.5), 1, 12))


def streak_kernel(length: float, angle: float, fine: int = 8) -> np.ndarray:
    """A line `length` px long through the middle at `angle` (radians, image axes: y down), as
    light smeared evenly along it: drawn `fine` times larger, antialiased, then shrunk."""
    side = int(math.ceil(length)) // 2 * 2 + 3
    big = np.zeros((side * fine, side * fine), np.float32)
    c, half = (side * fine - 1) / 2, length * fine / 2
    dx, dy = half * math.cos(angle), half * math.sin(angle)
    cv2.line(big, (round((c - dx) * 16), round((c - dy) * 16)), (round((c + dx) * 16), round((c + dy) * 16)),
             1.0, fine, cv2.LINE_AA, shift=4)
    small = cv2.resize(big, (side, side), interpolation=cv2.INTER_AREA)
    return small / small.sum()


def _times(n: np.ndarray, m: np.ndarray) -> np.ndarray:
    """(N x 3) @ (3 x K) without BLAS, whose threads only get in the way at these sizes."""
    return np.einsum("ij,jk->ik", n, m.astype(np.float32))


def _sample(image: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Bilinear samples of image at float pixel coordinates (remap wants 2-D maps under 32k a side)."""
    n, cols = len(x), 512
    rows = -(-n // cols)
    maps = np.zeros((2, rows * cols), np.float32)
    maps[0, :n], maps[1, :n] = x, y
    out = cv2.remap(image, maps[0].reshape(rows, cols), maps[1].reshape(rows, cols), cv2.INTER_LINEAR,
                    borderMode=cv2.BORDER_REPLICATE)
    return out.reshape(-1)[:n]


# --- passes ---

@dataclass
class Shot:
    """One frame of a pass, with its truth."""
    t: float                  # exposure start, seconds from the pass's start
    image: np.ndarray
    jpeg: bytes | None
    visible: bool             # some of the ball is in the frame
    blur: float = 0.0         # px the ball's surface moves during the exposure (motion blur)


class Pass:
    """A ball going by: frame times and truth are known at once; each frame is rendered when
    first asked for, from its own seed, so any frame can be had alone and always looks the same."""

    def __init__(self, renderer: "Renderer", kind: str, fps: float, ball: int, seed: int):
        rng = np.random.default_rng([seed, 0])
        cam, design = renderer.camera, renderer.design
        if kind == "cradle":
            self.pose, exposure = cradle_pose(rng, design), rng.uniform(*CRADLE_EXPOSURE)
            duration = rng.uniform(*CRADLE_SECONDS)
        elif kind == "chute":
            self.pose, exposure, duration = chute_pose(rng, cam, design), CHUTE_EXPOSURE, None
        else:
            raise ValueError(f"unknown pass kind {kind!r}")
        self.renderer, self.kind, self.fps, self.ball, self.seed = renderer, kind, fps, ball, seed
        self.look = random_look(rng, ball, cam, min(exposure, 0.9 / fps), seed)
        t, self.times = rng.uniform(0, 1 / fps), []
        while not self.times or (t <= duration if duration else not self._gone(self.times[-1]) or len(self.times) < 3):
            self.times.append(t)
            t += 1 / fps
        self.visible = [renderer.visible(self.look, self.pose, t) for t in self.times]
        self._shots: dict[int, Shot] = {}

    def __len__(self) -> int:
        return len(self.times)

    @property
    def fall_deg(self) -> float | None:
        """The chute's fall direction in the image (degrees from the x axis, y down), as the
        rig's calibration gives it; None for a cradle."""
        if self.kind != "chute":
            return None
        direction = self.pose.params["dir"]
        return math.degrees(math.atan2(direction[1], direction[0]))

    def shot(self, i: int, encode: bool = True) -> Shot:
        if i not in self._shots:
            rng = np.random.default_rng([self.seed, 1, i])
            streak = self._streak(i)
            image, jpeg, _ = self.renderer.frame(self.look, self.pose, self.times[i], rng, encode, streak=streak)
            blur = streak[0] if streak else self.renderer.blur_px(self.look, self.pose, self.times[i])
            self._shots[i] = Shot(self.times[i], image, jpeg, self.visible[i], blur)
        return self._shots[i]

    def _streak(self, i: int) -> tuple[float, float] | None:
        if self.kind != "chute":
            return None
        rng = np.random.default_rng([self.seed, 6, i])
        angle = math.radians(self.fall_deg + rng.normal(0, CHUTE_STREAK_JITTER_DEG))
        return float(rng.uniform(*CHUTE_STREAK_PX)), angle

    @property
    def shots(self) -> list[Shot]:
        return [self.shot(i) for i in range(len(self))]

    @property
    def first_visible(self) -> float | None:
        return next((t for t, v in zip(self.times, self.visible) if v), None)

    def _gone(self, t: float) -> bool:
        """Out of view past the frame's far side (right, or the top or bottom it runs towards)."""
        centre, _ = self.pose.at(t)
        cam = self.renderer.camera
        u, v = cam.project(centre)
        margin = cam.focal * self.renderer.design.radius / centre[2] + 20
        return u > cam.width + margin or (u > cam.width / 2 and not -margin < v < cam.height + margin)


def render_pass(renderer: "Renderer", kind: str, fps: float, ball: int, seed: int) -> Pass:
    return Pass(renderer, kind, fps, ball, seed)


def cradle_pose(rng: np.random.Generator, design: labels.Design) -> Pose:
    depth = rng.uniform(*CRADLE_DEPTH)
    angle = rng.uniform(0, 2 * math.pi)
    direction = np.array([math.cos(angle), math.sin(angle), 0.0])
    rest = np.array([rng.uniform(-8, 8), rng.uniform(-6, 6), depth])
    toward_camera = np.array([0.0, 0.0, -1.0])
    return Pose("cradle", rest, random_rotation(rng), {
        "x0": -rng.uniform(55, 95), "gamma": rng.uniform(4.0, 8.0), "omega": 2 * math.pi * rng.uniform(1.2, 2.2),
        "dir": direction, "axis": np.cross(toward_camera, direction), "radius": design.radius})


def chute_pose(rng: np.random.Generator, camera: Camera, design: labels.Design) -> Pose:
    """Entering at the frame's left edge on a line through (near) the frame's middle."""
    depth = rng.uniform(*CHUTE_DEPTH)
    half_w = camera.width / 2 / camera.focal * depth
    tilt = math.radians(rng.uniform(*CHUTE_TILT_DEG)) * rng.choice([-1, 1])
    direction = np.array([math.cos(tilt), math.sin(tilt), 0.0])
    back = (half_w + design.radius + rng.uniform(1, 30)) / direction[0]
    start = np.array([0.0, rng.uniform(-10, 10), depth]) - back * direction
    v0 = rng.uniform(*CHUTE_SPEED)
    return Pose("chute", start, random_rotation(rng), {
        "v0": v0, "accel": CHUTE_ACCEL, "dir": direction,
        # rolling turns it at v / r; bouncing off the walls tips the axis anywhere
        "spin_axis": rng.normal(size=3), "spin": v0 / design.radius * rng.uniform(0.3, 1.2)})


def single_frame(renderer: Renderer, seed: int, empty: bool = False,
                 ball: int | None = None) -> tuple[np.ndarray, bytes, dict]:
    """A random still or moving frame (or an empty one) and its truth."""
    rng = np.random.default_rng([seed, 2])
    ball = int(rng.integers(1, 28)) if ball is None else ball
    kind = rng.choice(["cradle", "chute"])
    if kind == "cradle":
        pose, exposure = cradle_pose(rng, renderer.design), rng.uniform(*CRADLE_EXPOSURE)
        t = rng.uniform(0.1, 0.8)
    else:
        pose, exposure = chute_pose(rng, renderer.camera, renderer.design), rng.uniform(*CHUTE_FRAME_EXPOSURE)
        t = _time_in_view(renderer, pose, rng)
    look = random_look(rng, ball, renderer.camera, exposure, seed)
    image, jpeg, visible = renderer.frame(look, None if empty else pose, t, rng)
    truth = {"ball": ball if visible else None, "kind": str(kind), "inverted": look.inverted,
             "gloss": round(look.gloss, 2), "exposure_ms": round(exposure * 1000, 2)}
    return image, jpeg, truth


def _time_in_view(renderer: Renderer, pose: Pose, rng: np.random.Generator) -> float:
    """A time when the falling ball's centre is inside the frame."""
    cam, p = renderer.camera, pose.params
    half_w = cam.width / 2 / cam.focal * pose.centre0[2]
    target = (-pose.centre0[0] + rng.uniform(-half_w, half_w)) / p["dir"][0]
    v0, a = p["v0"], p["accel"]
    return (-v0 + math.sqrt(v0 * v0 + 2 * a * target)) / a


def plain_look(renderer: Renderer, ball: int, seed: int) -> Look:
    """Even light, no glare, a sharp and clean camera: for checking every label."""
    rng = np.random.default_rng([seed, 3])
    look = random_look(rng, ball, renderer.camera, 0.004, seed)
    look.gloss, look.body_gloss, look.gain, look.noise, look.defocus, look.jpeg, look.inverted = \
        0.0, 0.0, 1.1, 1.5, 0.5, 90, False
    look.light = np.array([0.0, 0.0, -1.0])
    return look


def label_view(renderer: Renderer, look: Look, copy: int, off_axis_deg: float, seed: int,
               depth: float = 100.0) -> np.ndarray:
    """A still frame of look.ball with sticker `copy` turned off_axis_deg from the camera."""
    rng = np.random.default_rng([seed, 5])
    toward = np.array([0.0, 0.0, -1.0])
    centre = renderer.centres[copy]
    # turn the ball so `copy` points at the camera, then tip it off_axis_deg
    face = _align(centre, toward)
    tip = rotation(rng.normal(size=3) * [1, 1, 0], math.radians(off_axis_deg))
    pose = Pose("still", np.array([0.0, 0.0, depth]), tip @ face)
    image, _, _ = renderer.frame(look, pose, 0.0, rng)
    return image


def _align(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A rotation taking unit vector a to unit vector b."""
    axis = np.cross(a, b)
    s, c = np.linalg.norm(axis), float(a @ b)
    if s < 1e-9:
        return np.eye(3) if c > 0 else rotation(np.cross(a, [1.0, 0, 0]) if abs(a[0]) < 0.9 else [0, 1.0, 0], math.pi)
    return rotation(axis, math.atan2(s, c))
