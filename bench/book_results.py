"""The book's results: train chapters 1, 2, 4, 5 and 6 as shipped and record what they reach.

Run (slow; not part of the test suite):

    python bench/book_results.py                       # every chapter, the book's settings
    python bench/book_results.py --chapters 1 2 --data /work/shared/datasets
    python bench/book_results.py --chapters 4 --passes 4=2 --limit 4=200000
    python bench/book_results.py --render-only         # rewrite the docs from results.json

Each chapter runs its own ``book/<chapter>/train.py`` cell by cell as its notebook does
(``book/run_chapter.py``: the book's network, optimizer, batch size and reader
decorators) in a fresh process on the real data under ``--data``
(``PADDLE_LITE_DATA_HOME``). Pass counts and sample limits default to the
book's and may be lowered; every result records the configuration it was measured
with. Results accumulate in ``docs/book/results.json`` (replaced atomically) and are
rendered between the ``<!-- book-results -->`` markers of ``docs/book/*.md``, next to the
figures the book published.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import json
import os
import pathlib
import platform
import random
import re
import subprocess
import sys
import tempfile
import time
import warnings

ROOT = pathlib.Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "book" / "results.json"
DEFAULT_DATA = ROOT.parent / "shared" / "datasets"
BEGIN, END = "<!-- book-results:begin -->", "<!-- book-results:end -->"

# chapter -> (folder, docs page, the book's passes, the book's published figure)
CHAPTERS = {
    "1": ("01.fit_a_line", "01.fit_a_line.md", 30, "test cost settles at about 15-20 (figure)"),
    "2": (
        "02.recognize_digits",
        "02.recognize_digits.md",
        5,
        "accuracy: softmax 92.34%, MLP 97.66%, LeNet-5 99.20%",
    ),
    "4": ("04.word2vec", "04.word2vec.md", 100, "error 0.735611 after 30 passes"),
    "5": (
        "05.recommender_system",
        "05.recommender_system.md",
        2,
        "test cost about 3.3-3.5 after 2 passes (figure)",
    ),
    "6": (
        "06.understand_sentiment",
        "06.understand_sentiment.md",
        1,
        "text CNN test error 0.11432 after 1 pass",
    ),
}


def _run_chapter(folder: str, **settings):
    """The chapter's program run as its notebook runs (``book/run_chapter.py``), with
    ``settings``; returns its variables."""
    spec = importlib.util.spec_from_file_location("run_chapter", ROOT / "book" / "run_chapter.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.run_chapter(folder, plot=False, **settings)


def _run_captured(fn, *args, **kwargs):
    """Call ``fn`` with stdout captured; return (result, printed text, seconds)."""
    out = io.StringIO()
    start = time.perf_counter()
    with contextlib.redirect_stdout(out), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn(*args, **kwargs)
    text = out.getvalue()
    notes = sorted({str(w.message).splitlines()[0] for w in caught})
    return result, text, time.perf_counter() - start, notes


def _count(reader) -> int:
    return sum(1 for _ in reader())


def _limited(paddle, reader, limit):
    return paddle.reader.firstn(reader, limit) if limit else reader


def run_chapter1(passes, limit, save_dir):
    state, text, secs, notes = _run_captured(
        _run_chapter, "01.fit_a_line", num_passes=passes, save_dir=save_dir
    )
    result = state["result"]
    tests = [float(c) for c in re.findall(r"^Test \d+, Cost ([\d.]+)", text, re.M)]
    return {
        "measured": {"test_cost": result.cost, "test_cost_per_pass": tests},
        "summary": f"test cost {result.cost:.2f} after {passes} passes "
        f"(best pass {min(tests):.2f}, after pass 0 {tests[0]:.2f})",
        "seconds": secs,
        "notes": notes,
        "data": "uci_housing: 404 train / 102 test rows (the exact original file)",
    }


def run_chapter2(passes, limit, save_dir):
    import paddle_lite as paddle

    train = _limited(paddle, paddle.dataset.mnist.train(), limit)
    test = paddle.dataset.mnist.test()
    measured, seconds, notes = {}, 0.0, []
    for net in ("softmax", "mlp", "lenet"):
        random.seed(0)
        state, _, secs, more = _run_captured(
            _run_chapter,
            "02.recognize_digits",
            net=net,
            num_passes=passes,
            train_reader=train,
            test_reader=test,
            save_dir=save_dir,
        )
        best = state["best"]
        measured[net] = {
            "best_pass": best[0],
            "test_cost": float(best[1]),
            "accuracy_percent": 100 - float(best[2]) * 100,
            "test_error_per_pass": [float(t[2]) for t in state["tests"]],
        }
        seconds += secs
        notes += more
    names = {"softmax": "softmax", "mlp": "MLP", "lenet": "LeNet-5"}
    accs = ", ".join(f"{names[n]} {m['accuracy_percent']:.2f}%" for n, m in measured.items())
    return {
        "measured": measured,
        "summary": f"best pass by test cost: {accs}",
        "seconds": seconds,
        "notes": sorted(set(notes)),
        "data": f"MNIST: {_count(train)} training images, {_count(test)} test images",
    }


def run_chapter4(passes, limit, save_dir):
    import paddle_lite as paddle

    word_dict = paddle.dataset.imikolov.build_dict()
    train = _limited(paddle, paddle.dataset.imikolov.train(word_dict, 5), limit)
    test = paddle.dataset.imikolov.test(word_dict, 5)
    state, text, secs, notes = _run_captured(
        _run_chapter,
        "04.word2vec",
        num_passes=passes,
        word_dict=word_dict,
        train_reader=train,
        test_reader=test,
        save_dir=save_dir,
    )
    result = state["result"]
    errors = [
        float(e)
        for e in re.findall(r"Testing metrics \{'classification_error_evaluator': ([\d.e-]+)", text)
    ]
    err = result.metrics["classification_error_evaluator"]
    return {
        "measured": {"test_error": err, "test_cost": result.cost, "test_error_per_pass": errors},
        "summary": f"next-word error {err:.4f} on ptb.valid after {passes} pass(es)",
        "seconds": secs,
        "notes": notes,
        "data": f"PTB: {_count(train)} training 5-grams, {_count(test)} test 5-grams, "
        f"{len(word_dict)} words",
    }


def run_chapter5(passes, limit, save_dir):
    import paddle_lite as paddle

    random.seed(0)
    train = _limited(paddle, paddle.dataset.movielens.train(), limit)
    test = paddle.dataset.movielens.test()
    state, text, secs, notes = _run_captured(
        _run_chapter,
        "05.recommender_system",
        num_passes=passes,
        train_reader=train,
        test_reader=test,
        save_dir=save_dir,
    )
    result, score = state["result"], state["score"]
    return {
        "measured": {"test_cost": result.cost, "user234_movie345": float(score)},
        "summary": f"test cost {result.cost:.3f} after {passes} pass(es); "
        f"user 234 / movie 345: {float(score):.2f}",
        "seconds": secs,
        "notes": notes,
        "data": f"MovieLens-1M: {_count(train)} training / {_count(test)} test ratings",
    }


def run_chapter6(passes, limit, save_dir):
    import paddle_lite as paddle

    random.seed(0)
    word_dict = paddle.dataset.imdb.word_dict()
    train = _limited(paddle, paddle.dataset.imdb.train(word_dict), limit)
    test = paddle.dataset.imdb.test(word_dict)
    state, text, secs, notes = _run_captured(
        _run_chapter,
        "06.understand_sentiment",
        net="conv",
        num_passes=passes,
        word_dict=word_dict,
        train_reader=train,
        test_reader=test,
        save_dir=save_dir,
    )
    result = state["result"]
    errors = [
        float(e)
        for e in re.findall(
            r"Test with Pass \d+, \{'classification_error_evaluator': ([\d.e-]+)", text
        )
    ]
    err = result.metrics["classification_error_evaluator"]
    return {
        "measured": {"test_error": err, "test_error_per_pass": errors},
        "summary": f"text CNN test error {err:.5f} after {passes} pass(es)",
        "seconds": secs,
        "notes": notes,
        "data": f"IMDB: {_count(train)} training / {_count(test)} test reviews, "
        f"{len(word_dict)} words",
    }


RUNNERS = {
    "1": run_chapter1,
    "2": run_chapter2,
    "4": run_chapter4,
    "5": run_chapter5,
    "6": run_chapter6,
}


def run_one(chapter, passes, limit, data):
    """Run one chapter in this process; print one JSON line."""
    os.environ["PADDLE_LITE_DATA_HOME"] = str(data)
    with tempfile.TemporaryDirectory() as save_dir:
        record = RUNNERS[chapter](passes, limit, save_dir)
    import jax

    record.update(
        chapter=chapter,
        passes=passes,
        limit=limit,
        book_passes=CHAPTERS[chapter][2],
        book=CHAPTERS[chapter][3],
        machine=f"{platform.machine()}, {os.cpu_count()} CPU cores, jax {jax.__version__} "
        f"({jax.default_backend()}, {len(jax.devices())} device"
        f"{'s' if len(jax.devices()) > 1 else ''})",
        date=time.strftime("%Y-%m-%d"),
    )
    print("RESULT " + json.dumps(record))


def _atomic_write(path: pathlib.Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def load_results() -> dict:
    return json.loads(RESULTS.read_text()) if RESULTS.exists() else {}


def _text(value: str) -> str:
    """A recorded summary as the pages print it (plurals made plain)."""
    value = re.sub(r"\b1 pass\(es\)", "1 pass", value).replace("pass(es)", "passes")
    return re.sub(r"\b1 devices\b", "1 device", value)


def reproduce(record: dict) -> str:
    """The command that measures the record again."""
    cmd = f"python bench/book_results.py --chapters {record['chapter']}"
    if record["passes"] != record["book_passes"]:
        cmd += f" --passes {record['chapter']}={record['passes']}"
    if record.get("limit"):
        cmd += f" --limit {record['chapter']}={record['limit']}"
    return f"`{cmd} --data DIR` (DIR: a data home holding the data set's files)"


def render_table(record: dict) -> str:
    limit = f", the first {record['limit']:,} training samples" if record.get("limit") else ""
    passes = record["passes"]
    lines = [
        "| item | result |",
        "| --- | --- |",
        f"| published (book) | {record['book']} |",
        f"| paddle_lite | {_text(record['summary'])} |",
        f"| passes | {passes} (the book: {record['book_passes']}){limit} |",
        f"| data | {record['data']} |",
        f"| machine | {_text(record['machine'])}; {record['seconds']:.0f} s on {record['date']} |",
        f"| reproduce | {reproduce(record)} |",
    ]
    if record.get("seeds"):  # where one run is chaotic: the spread over seeds (kept on re-runs)
        lines[3] = f"| paddle_lite, one run (seed 0) | {_text(record['summary'])} |"
        lines.insert(3, f"| paddle_lite, over seeds | {record['seeds']} |")
    for note in record.get("notes", []):
        lines.append(f"| warning printed | {note} |")
    return "\n".join(lines)


def render_docs(results: dict) -> None:
    """Rewrite the text between the markers of every chapter page with its results."""
    for chapter, (_, page, _, book) in CHAPTERS.items():
        path = ROOT / "docs" / "book" / page
        if not path.exists():
            continue
        record = results.get(chapter)
        body = (
            render_table(record)
            if record
            else (
                f"Not run yet. Published: {book}. Run `python bench/book_results.py "
                f"--chapters {chapter}`."
            )
        )
        _replace_between_markers(path, body)
    index = ROOT / "docs" / "book" / "index.md"
    if index.exists():
        _replace_between_markers(index, render_summary(results))


def render_summary(results: dict) -> str:
    """One row per chapter: the book's figure, what was measured, and with how many passes."""
    rows = [
        "| chapter | published (book) | paddle_lite | passes (the book's) |",
        "| --- | --- | --- | --- |",
    ]
    for chapter, (folder, page, book_passes, book) in CHAPTERS.items():
        record = results.get(chapter)
        measured = _text(record.get("seeds") or record["summary"]) if record else "not run"
        passes = f"{record['passes']} ({book_passes})" if record else f"- ({book_passes})"
        rows.append(f"| [{folder}]({page}) | {book} | {measured} | {passes} |")
    return "\n".join(rows)


def _replace_between_markers(path: pathlib.Path, body: str) -> None:
    text = path.read_text()
    if BEGIN not in text:
        return
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    _atomic_write(path, f"{head}{BEGIN}\n{body}\n{END}{tail}")


def parse_overrides(items, cast):
    out = {}
    for item in items or []:
        chapter, value = item.split("=", 1)
        out[chapter] = cast(value)
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--chapters", nargs="*", default=sorted(RUNNERS))
    parser.add_argument("--data", default=str(DEFAULT_DATA), help="PADDLE_LITE_DATA_HOME")
    parser.add_argument("--passes", nargs="*", help="CHAPTER=PASSES (default: the book's)")
    parser.add_argument("--limit", nargs="*", help="CHAPTER=N: train on the first N samples")
    parser.add_argument("--render-only", action="store_true")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    passes = parse_overrides(args.passes, int)
    limits = parse_overrides(args.limit, int)
    if args.one:
        run_one(args.one, passes[args.one], limits.get(args.one), args.data)
        return
    results = load_results()
    for chapter in [] if args.render_only else args.chapters:
        n = passes.get(chapter, CHAPTERS[chapter][2])
        cmd = [
            sys.executable,
            __file__,
            "--one",
            chapter,
            "--data",
            args.data,
            "--passes",
            f"{chapter}={n}",
        ]
        if chapter in limits:
            cmd += ["--limit", f"{chapter}={limits[chapter]}"]
        print(f"chapter {chapter}: {n} pass(es) ...", flush=True)
        done = subprocess.run(
            cmd,
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        lines = [ln for ln in done.stdout.splitlines() if ln.startswith("RESULT ")]
        if done.returncode != 0 or not lines:
            print(done.stdout[-2000:], done.stderr[-4000:], file=sys.stderr)
            continue
        seeds = results.get(chapter, {}).get("seeds")  # a separate, slower measurement
        results[chapter] = json.loads(lines[-1][7:])
        if seeds:
            results[chapter]["seeds"] = seeds
        print(f"chapter {chapter}: {results[chapter]['summary']}", flush=True)
        _atomic_write(RESULTS, json.dumps(results, indent=1, sort_keys=True) + "\n")
    render_docs(results)


if __name__ == "__main__":
    main()
