"""What the scripts and the Python CLI tests share: atomic output files (files.py) and running
ios's CLIs (cli.py). scripts/ is the import root: `python3 scripts/x.py` puts it on the path,
and tests/python/pytest.ini puts it there for the tests."""
