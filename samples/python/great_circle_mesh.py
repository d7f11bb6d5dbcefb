# great_circle_mesh.py -- great-circle distances from Paris to every point of a lat/lon mesh,
# twice: a @vectorize ufunc over broadcast NumPy arrays, and a 2-D kernel that calls a device
# function; both against NumPy.
# Run: python3 samples/python/great_circle_mesh.py
import math

import numpy as np
from pyk2cuda import cuda, vectorize

R = 6371.0  # km


@cuda.jit(device=True)
def haversine(lat1, lon1, lat2, lon2):
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * R * math.asin(math.sqrt(a))


@cuda.jit
def mesh_distances(dist, lats, lons, lat0, lon0):
    i, j = cuda.grid(2)
    if i < dist.shape[0] and j < dist.shape[1]:
        dist[i, j] = haversine(lat0, lon0, lats[i], lons[j])


@vectorize(['float64(float64, float64, float64, float64)'], target='cuda')
def gc_distance(lat1, lon1, lat2, lon2):
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * R * math.asin(math.sqrt(a))


def reference(lat1, lon1, lat2, lon2):
    p1, p2 = np.radians(lat1), np.radians(lat2)
    dp, dl = p2 - p1, np.radians(lon2 - lon1)
    a = np.sin(dp / 2) ** 2 + np.cos(p1) * np.cos(p2) * np.sin(dl / 2) ** 2
    return 2 * R * np.arcsin(np.sqrt(a))


lats = np.linspace(-90, 90, 120)
lons = np.linspace(-180, 180, 160)
paris = (48.8566, 2.3522)
expected = reference(paris[0], paris[1], lats[:, None], lons[None, :])

by_ufunc = gc_distance(paris[0], paris[1], lats[:, None], lons[None, :])
assert by_ufunc.shape == (120, 160)
assert np.allclose(by_ufunc, expected, rtol=1e-12, atol=1e-9)

dist = cuda.device_array((lats.size, lons.size))
block = (16, 16)
grid = ((lats.size + 15) // 16, (lons.size + 15) // 16)
mesh_distances[grid, block](dist, cuda.to_device(lats), cuda.to_device(lons), *paris)
assert np.allclose(dist.copy_to_host(), expected, rtol=1e-12, atol=1e-9)
print("great_circle_mesh: ok (max %.1f km)" % expected.max())
