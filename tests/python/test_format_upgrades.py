"""Files from another ios version are refused cleanly: a timing cache of a newer or an older
format (iosc --timing-cache) and a plan of a newer format (iosrun) give exit status 2 and a
message naming both versions and what to do; the file is neither read nor changed, and no plan
is written."""
import pytest

from ios_tools.cli import check_run, run


def field(number, value):
    """One protobuf field: a varint for an int, length-delimited for bytes."""
    if isinstance(value, int):
        key, payload = number << 3, b""
        while True:
            byte = value & 0x7F
            value >>= 7
            payload += bytes([byte | (0x80 if value else 0)])
            if not value:
                break
        return bytes([key]) + payload
    return bytes([number << 3 | 2, len(value)]) + value


def timing_cache(major, minor, ios_version):
    """A TimingCache message (proto/timing_cache.proto) of the given format, with no stages."""
    return (field(1, b"ios-timing-cache") + field(2, major) + field(3, minor) +
            field(4, b"sim:V100") + field(7, ios_version))


CACHES = {
    "newer": (2, ["timing cache format 2.3 (written by ios 9.9.9) is newer than this ios",
                  "reads format 1.x", "upgrade ios"]),
    "older": (0, ["timing cache format 0.3 (written by ios 9.9.9) is older than this ios",
                  "reads format 1.x", "delete it"]),
}


@pytest.mark.parametrize("label", list(CACHES))
def test_timing_cache_of_another_format(label, iosc, residual_model, tmp_path):
    """Exit status 2, a message naming the file and both versions, no plan, the file untouched."""
    major, needles = CACHES[label]
    cache, plan = tmp_path / f"{label}.cache", tmp_path / "model.iosplan"
    contents = timing_cache(major, 3, b"9.9.9")
    cache.write_bytes(contents)
    result = run([iosc, residual_model, "--device", "sim:V100", "--timing-cache", cache,
                  "-o", plan])
    assert result.returncode == 2, result.stderr
    missing = [n for n in [str(cache)] + needles if n not in result.stderr]
    assert not missing, result.stderr
    assert not plan.exists()
    assert cache.read_bytes() == contents


@pytest.fixture(scope="module")
def plan_bytes(iosc, residual_model, tmp_path_factory):
    plan = tmp_path_factory.mktemp("plan") / "model.iosplan"
    check_run([iosc, residual_model, "--device", "sim:V100", "-o", plan], "iosc")
    return plan.read_bytes()


def test_plan_body_starts_with_format_major_7(plan_bytes):
    assert plan_bytes[56:58] == b"\x08\x07", plan_bytes[56:60].hex()


def test_newer_plan_refused(plan_bytes, iosrun, tmp_path):
    """A plan whose body claims the next format major (field 1 of the plan message): exit status
    2 and a message naming the file, both versions and what to do. With --no-verify the body's
    digest no longer matches, and the version must still be refused rather than the plan read
    as a format 7 one."""
    newer = str(tmp_path / "v8.iosplan")
    with open(newer, "wb") as f:
        f.write(plan_bytes[:56] + b"\x08\x08" + plan_bytes[58:])
    result = run([iosrun, newer, "--no-verify"])
    assert result.returncode == 2, result.stderr
    missing = [n for n in (newer, "plan format 8.", "is newer than this build of ios reads",
                           "reads formats 1.x to 7.x", "upgrade ios") if n not in result.stderr]
    assert not missing, result.stderr
