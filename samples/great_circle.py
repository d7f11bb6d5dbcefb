# great_circle.py -- great-circle distances over a latitude/longitude mesh.
#
# Shows: a kernel with no input arrays (each thread derives its latitude and
# longitude from its 2-D index), scalar kernel arguments, a
# @cuda.jit(device=True) helper holding the haversine formula, math.sin /
# math.cos / math.asin / math.sqrt, `**`, and module-level float constants.
#
# dist[i, j] is the distance in km from the reference point (lat0, lon0), in
# degrees, to the mesh point with latitude -90..90 (rows) and longitude
# -180..180 (columns), both spaced evenly.
#
# Run it with pyk2cuda on a 1000x1000 mesh (distances from Paris):
#   pyk2cuda run samples/great_circle.py great_circle --grid 63,63 --block 16,16 zeros:float64[1000,1000] 48.8566 2.3522
# Run it with Numba's CUDA simulator (no GPU needed; the simulator is slow, so
# __main__ uses a 100x100 mesh):
#   NUMBA_ENABLE_CUDASIM=1 python3 samples/great_circle.py

import math

from numba import cuda
import numpy as np

EARTH_RADIUS_KM = 6371.0
DEG_TO_RAD = 0.017453292519943295   # math.pi / 180


@cuda.jit(device=True)
def haversine(lat1, lon1, lat2, lon2):
    # great-circle distance in km between two points given in degrees
    phi1 = lat1 * DEG_TO_RAD
    phi2 = lat2 * DEG_TO_RAD
    dphi = (lat2 - lat1) * DEG_TO_RAD
    dlam = (lon2 - lon1) * DEG_TO_RAD
    a = math.sin(dphi / 2) ** 2 + math.cos(phi1) * math.cos(phi2) * math.sin(dlam / 2) ** 2
    return 2.0 * EARTH_RADIUS_KM * math.asin(math.sqrt(a))


@cuda.jit
def great_circle(dist, lat0, lon0):
    n, m = dist.shape
    i, j = cuda.grid(2)
    if i < n and j < m:
        lat = -90.0 + 180.0 * i / (n - 1)
        lon = -180.0 + 360.0 * j / (m - 1)
        dist[i, j] = haversine(lat0, lon0, lat, lon)


def great_circle_reference(n, m, lat0, lon0):
    lat = (-90.0 + 180.0 * np.arange(n) / (n - 1))[:, None]
    lon = (-180.0 + 360.0 * np.arange(m) / (m - 1))[None, :]
    phi1, phi2 = np.radians(lat0), np.radians(lat)
    dphi, dlam = np.radians(lat - lat0), np.radians(lon - lon0)
    a = np.sin(dphi / 2) ** 2 + np.cos(phi1) * np.cos(phi2) * np.sin(dlam / 2) ** 2
    return 2.0 * EARTH_RADIUS_KM * np.arcsin(np.sqrt(a))


if __name__ == "__main__":
    n, m = 100, 100                     # 1000, 1000 on a GPU; the simulator is slow
    lat0, lon0 = 48.8566, 2.3522        # Paris
    dist = np.zeros((n, m), dtype=np.float64)

    block = (16, 16)
    grid = ((n + block[0] - 1) // block[0], (m + block[1] - 1) // block[1])
    great_circle[grid, block](dist, lat0, lon0)

    expected = great_circle_reference(n, m, lat0, lon0)
    assert np.allclose(dist, expected, rtol=1e-9, atol=1e-6), np.abs(dist - expected).max()
    # Sanity: the farthest point is on the other side of the Earth, ~20015 km.
    assert 19000.0 < dist.max() <= math.pi * EARTH_RADIUS_KM + 1e-6, dist.max()
    print("great_circle: ok (%dx%d mesh, max %.1f km)" % (n, m, dist.max()))
