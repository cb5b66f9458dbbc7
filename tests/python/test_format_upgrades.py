"""Files from another ios version are refused cleanly: a timing cache of a newer or an older
format (iosc --timing-cache) and a plan of a newer format (iosrun) give exit status 2 and a
message naming both versions and what to do; the file is neither read nor changed, and no plan
is written."""
import os
import tempfile

from ios_test_util import Tally, parse_args, run

MODEL = "residual_blocks_opset17.onnx"


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


def main():
    args = parse_args()
    tally = Tally()
    model = os.path.join(args.source_dir, "testdata", "models", MODEL)
    with tempfile.TemporaryDirectory() as tmp:
        plan = os.path.join(tmp, "model.iosplan")
        for label, major, needles in (
                ("newer", 2, ["timing cache format 2.3 (written by ios 9.9.9) is newer than this ios",
                              "reads format 1.x", "upgrade ios"]),
                ("older", 0, ["timing cache format 0.3 (written by ios 9.9.9) is older than this ios",
                              "reads format 1.x", "delete it"])):
            cache = os.path.join(tmp, f"{label}.cache")
            contents = timing_cache(major, 3, b"9.9.9")
            with open(cache, "wb") as f:
                f.write(contents)
            result = run([args.iosc, model, "--device", "sim:V100", "--timing-cache", cache,
                          "-o", plan])
            tally.check(f"{label} timing cache: exit status 2", result.returncode == 2,
                        f"got {result.returncode}: {result.stderr}")
            for needle in [cache] + needles:
                tally.check(f"{label} timing cache: says {needle!r}", needle in result.stderr,
                            result.stderr)
            tally.check(f"{label} timing cache: no plan written", not os.path.exists(plan))
            with open(cache, "rb") as f:
                tally.check(f"{label} timing cache: the file is untouched", f.read() == contents)

        # A plan whose body claims the next format major (field 1 of the plan message).
        result = run([args.iosc, model, "--device", "sim:V100", "-o", plan])
        if not tally.check("iosc writes a plan", result.returncode == 0, result.stderr):
            tally.finish()
        data = open(plan, "rb").read()
        tally.check("its body starts with format major 7", data[56:58] == b"\x08\x07",
                    data[56:60].hex())
        newer = os.path.join(tmp, "v8.iosplan")
        with open(newer, "wb") as f:
            f.write(data[:56] + b"\x08\x08" + data[58:])
        # --no-verify: the body's digest no longer matches, and the version must still be
        # refused rather than the plan read as a format 7 one.
        result = run([args.iosrun, newer, "--no-verify"])
        tally.check("newer plan: exit status 2", result.returncode == 2,
                    f"got {result.returncode}: {result.stderr}")
        for needle in (newer, "plan format 8.", "is newer than this build of ios reads",
                       "reads formats 1.x to 7.x", "upgrade ios"):
            tally.check(f"newer plan: says {needle!r}", needle in result.stderr, result.stderr)
    tally.finish()


if __name__ == "__main__":
    main()
