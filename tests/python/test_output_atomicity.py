"""Outputs are written whole or not at all. Under injected failures, an existing output file keeps
its old bytes and no temporary file is left beside it:
* a full disk, simulated with a file-size limit (RLIMIT_FSIZE, SIGXFSZ ignored so that the write
  fails with EFBIG as it would with ENOSPC), for iosc -o, --emit-onnx, --dump-blocks and iosrun
  --save-outputs: exit 2 with a message naming the file;
* a kill (SIGKILL) at spread times during iosc -o: the plan path holds the old bytes or a complete
  plan that iosrun loads, never a partial one."""
import os
import resource
import signal
import subprocess
import time

import pytest

from ios_tools.cli import check_run, run


def limited(limit_bytes):
    def setup():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit_bytes, limit_bytes))
    return setup


def leftovers(folder, name):
    return [f for f in os.listdir(folder) if f.startswith(name) and f != name]


@pytest.mark.parametrize("flag, name", [("-o", "out.iosplan"), ("--emit-onnx", "out.onnx"),
                                        ("--dump-blocks", "blocks.json")])
def test_iosc_output_on_a_full_disk(flag, name, iosc, residual_model, tmp_path):
    """Exit status 2 naming the file; the old file untouched; no temporary file left."""
    target = tmp_path / name
    target.write_text("precious")
    # 2 KB: less than each output (the block dump of this model is 3.9 KB).
    result = subprocess.run([iosc, residual_model, flag, target], capture_output=True,
                            text=True, preexec_fn=limited(2048))
    assert result.returncode == 2 and str(target) in result.stderr, result.stderr
    assert target.read_text() == "precious"
    assert not leftovers(tmp_path, name)


@pytest.fixture(scope="module")
def squeezenet(models):
    # SqueezeNet's output at batch 8 is 32 KB; 8 KB lets the OpenMP runtime's own small files
    # through (clang's libomp registers itself in /dev/shm).
    return models(["squeezenet"])["squeezenet"]


def test_save_outputs_on_a_full_disk(squeezenet, iosc, iosrun, tmp_path):
    """Exit status 2 naming the file; the old file untouched."""
    plan = tmp_path / "good.iosplan"
    check_run([iosc, squeezenet, "--device", "sim:V100", "--batch", "8", "-o", plan], "iosc")
    outputs = tmp_path / "outputs"
    outputs.mkdir()
    saved = outputs / "output_0.pb"
    saved.write_text("precious")
    result = subprocess.run([iosrun, plan, "--device", "cpu", "--force", "--save-outputs",
                             outputs], capture_output=True, text=True, preexec_fn=limited(8192))
    assert result.returncode == 2 and "output_0.pb" in result.stderr, result.stderr
    assert saved.read_bytes() == b"precious"


def test_killed_iosc_leaves_the_old_bytes_or_a_loadable_plan(squeezenet, iosc, iosrun,
                                                             tmp_path):
    """Kills at spread times: the plan path is either the old bytes or a whole plan."""
    target = str(tmp_path / "killed.iosplan")
    start = time.time()
    check_run([iosc, squeezenet, "--device", "sim:V100", "-o", target], "iosc")
    duration = time.time() - start
    whole, old = 0, 0
    for i in range(12):
        with open(target, "w") as f:
            f.write("precious")
        process = subprocess.Popen([iosc, squeezenet, "--device", "sim:V100", "-o", target],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(duration * (0.3 + 0.7 * i / 11))
        process.send_signal(signal.SIGKILL)
        process.wait()
        with open(target, "rb") as f:
            if f.read() == b"precious":
                old += 1
            else:
                whole += run([iosrun, target, "--info"]).returncode == 0
    print(f"kills: {old} left the old file, {whole} came after the plan was complete")
    assert old + whole == 12, f"{old} old, {whole} whole plans of 12"
