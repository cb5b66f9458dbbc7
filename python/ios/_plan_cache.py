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


def model_digest(path: str, folder: str) -> str:
    """The model file's SHA-256, remembered in the cache folder by the file's path, size,
    modification time and inode, so that a session on an unchanged model does not read it
    again (hashing NasNet's 320 MB took 236 ms of the 660 a cached session took to open)."""
    info = os.stat(path)
    real = os.path.realpath(path)
    stamp = [real, info.st_size, info.st_mtime_ns, info.st_ino, info.st_dev]
    memo = os.path.join(folder, "digests",
                        hashlib.sha256(real.encode()).hexdigest()[:20] + ".json")
    try:
        with open(memo) as f:
            saved = json.load(f)
        if saved["stamp"] == stamp:
            return str(saved["sha256"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    digest = file_digest(path)
    try:
        os.makedirs(os.path.dirname(memo), exist_ok=True)
        temporary = f"{memo}.{os.getpid()}.tmp"
        with open(temporary, "w") as f:
            json.dump({"stamp": stamp, "sha256": digest}, f)
        os.replace(temporary, memo)
    except OSError:
        pass  # a read-only cache still works, hashing each time
    return digest


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
    return PlanCacheEntry(folder, model_path, model_digest(model_path, folder), options,
                          compile_device)
