"""``python -m bench`` rewrites its report but keeps the hand-written tail."""

from __future__ import annotations

from bench import __main__ as bench_main


def test_rewriting_the_report_keeps_the_hand_written_tail(tmp_path):
    md = tmp_path / "benchmarks.md"
    md.write_text(f"# old table\n\n{bench_main.KEPT}\n\n## by hand\n\nnotes\n")
    bench_main._write("# new table\n", {}, None, str(md))
    assert md.read_text() == f"# new table\n\n{bench_main.KEPT}\n\n## by hand\n\nnotes\n"


def test_a_report_without_the_marker_is_replaced_whole(tmp_path):
    md = tmp_path / "benchmarks.md"
    md.write_text("# old table\n")
    bench_main._write("# new table\n", {}, None, str(md))
    assert md.read_text() == "# new table\n"
