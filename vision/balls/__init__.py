"""Reading a ball in a camera frame: find the ball, flatten its labels with the sphere's
geometry, decode them, and match what no decoder reads against the labels we print.

    find         the round, ball-sized blobs in a frame and their outlines; label spots
    unroll       the sphere's geometry: its centre from the outline, its surface laid flat
    decode       the QR decoders behind one interface, and a finder square drawn back
    match        naming a label blurred past decoding among the 27 printed ones
    motion_blur  a streak along the fall direction measured and deblurred
    read         BallDecoder: frame in, FrameRead out (one ball named, or why not)

The printed design (vision.ball_labels) and acceptance over frames (vision.acceptance) stay
beside this package: the printer, the serial link's scanner and the screens use them without
loading OpenCV.
"""
from .decode import DECODERS, DEFAULT_DECODER, DecoderUnavailable, OpenCV, Pyzbar, Zxing, backend, finder_restored
from .find import DEFAULT_DISTANCE, Circle, apart_from, ball_radius_px, find_ball, find_balls
from .read import BallDecoder, FrameRead
from .unroll import DEFAULT_FOV, View, ball_centre, point_on_ball, sphere_fit, unroll

__all__ = ["DECODERS", "DEFAULT_DECODER", "DEFAULT_DISTANCE", "DEFAULT_FOV", "BallDecoder", "Circle",
           "DecoderUnavailable", "FrameRead", "OpenCV", "Pyzbar", "View", "Zxing", "apart_from", "backend",
           "ball_centre", "ball_radius_px", "find_ball", "find_balls", "finder_restored", "point_on_ball",
           "sphere_fit", "unroll"]
