"""examples/demo.py runs and reports what it promises."""

import importlib.util
import pathlib

DEMO = pathlib.Path(__file__).resolve().parents[2] / "examples" / "demo.py"


def test_demo_runs(capsys):
    spec = importlib.util.spec_from_file_location("demo", DEMO)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main()
    out = capsys.readouterr().out
    assert "shared parameters: ['embedding', 'semantic', 'semantic.wbias']" in out
    assert out.count("D frozen during the G phase: True") == 3
    assert "identical values: True" in out
