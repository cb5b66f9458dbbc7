"""The plan cache of ios.InferenceSession: a model compiled once per set of options and device,
then loaded from a folder. A plan's key is the SHA-256 of the model file's bytes, the compile
options, the device's fingerprint (ios::DeviceFingerprintJson: a CPU's model, cores and ISA; a
GPU's name, compute capability and versions) and the ios version; the stage timings measured
for a device live beside the plans, in one timing cache per fingerprint."""
from __future__ import annotations

import hashlib
import json
import os
from typing import Any, Dict, Optional

from . import _ios


def default_folder() -> str:
    """$IOS_CACHE_DIR, else $XDG_CACHE_HOME/ios, else ~/.cache/ios."""
    folder = os.environ.get("IOS_CACHE_DIR")
    if folder:
        return folder
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "ios")


def file_digest(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 22), b""):
            digest.update(chunk)
    return digest.hexdigest()


class PlanCacheEntry:
    """Where the plan for one model, options and device is (or will be) kept."""

    def __init__(self, folder: str, model_path: str, model_digest: str,
                 options: Dict[str, Any], compile_device: str) -> None:
        fingerprint = _ios.device_fingerprint(compile_device)
        key = json.dumps({"model": model_digest, "options": options,
                          "device": json.loads(fingerprint), "ios": _ios.version()},
                         sort_keys=True)
        digest = hashlib.sha256(key.encode()).hexdigest()[:20]
        device_digest = hashlib.sha256(fingerprint.encode()).hexdigest()[:20]
        stem = os.path.splitext(os.path.basename(model_path))[0] or "model"
        self.folder = folder
        self.plan_path = os.path.join(folder, f"{stem}.{digest}.iosplan")
        self.timing_cache_path = os.path.join(folder, f"timings.{device_digest}.cache")
        self.key = key

    def exists(self) -> bool:
        return os.path.isfile(self.plan_path)


def entry_for(model_path: str, options: Dict[str, Any], compile_device: str,
              folder: Optional[str] = None) -> PlanCacheEntry:
    folder = folder or default_folder()
    os.makedirs(folder, exist_ok=True)
    return PlanCacheEntry(folder, model_path, file_digest(model_path), options, compile_device)
