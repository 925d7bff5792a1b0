import os

import matplotlib

matplotlib.use("Agg")  # tests draw into files; nothing is displayed (claims/plotting.py sets none)

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ppm", deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ppm"))
