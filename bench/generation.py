"""Beam-search generation with book chapter 8's network: one compiled program per call.

Trains the chapter's attention encoder-decoder on a reversal task (target = source
reversed, 3-7 words), then translates 64 held-out sources with beam size 5 and reports:

- exact-match accuracy of the best result;
- the number of compiled programs launched per ``paddle.infer`` call (every launch is
  counted: jax's C++ fast path is turned off while counting);
- wall time per call (best of the rounds) with ``max_length`` 50 and 500: the search
  is one ``lax.while_loop`` that stops once every source has finished, so a larger
  ``max_length`` costs (almost) nothing when the sequences are short.

With ``--long`` it times instead long generations: the chapter's untrained generator
with the end-of-sequence word made unlikely (its output bias lowered by 8), so every
path runs to ``max_length`` (50, 200 and 800 steps), 64 sources, beam size 5.

Run: python bench/generation.py [--rounds 5] [--dim 32] [--long]
"""

import argparse
import importlib.util
import pathlib
import tempfile
import time

import jax._src.interpreters.pxla as pxla
import jax._src.pjit as pjit
import numpy as np

import paddle_lite as paddle

RUN_CHAPTER = pathlib.Path(__file__).resolve().parents[1] / "book" / "run_chapter.py"
CHAPTER = "08.machine_translation"
VOCAB = 12


def runner():
    """``book/run_chapter.py``: runs the chapter, or gives its definitions."""
    spec = importlib.util.spec_from_file_location("run_chapter", RUN_CHAPTER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def reversal(n, seed):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        words = rng.integers(3, VOCAB, int(rng.integers(3, 8))).tolist()
        out.append(([0, *words, 1], [0, *words[::-1]], [*words[::-1], 1]))
    return out


def count_launches(fn):
    """Run ``fn()`` with every compiled-program launch counted; returns (result, count)."""
    calls = []
    real_fast, real_call = pjit._get_fastpath_data, pxla.ExecuteReplicated.__call__
    pjit._get_fastpath_data = lambda *a, **k: None
    pxla.ExecuteReplicated.__call__ = lambda self, *a: calls.append(1) or real_call(self, *a)
    try:
        return fn(), len(calls)
    finally:
        pjit._get_fastpath_data, pxla.ExecuteReplicated.__call__ = real_fast, real_call


def main(rounds, dim):
    net = {"word_vector_dim": dim, "encoder_size": dim, "decoder_size": dim}
    train = reversal(4000, 0)
    held_out = reversal(64, 1)
    batch = [(s[0],) for s in held_out]
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as save_dir:
        book = runner().run_chapter(  # trains, then translates the first source
            CHAPTER,
            dict_size=VOCAB,
            num_passes=4,
            train_reader=lambda: iter(train),
            gen_data=batch[:1],
            dicts=({i: f"w{i}" for i in range(VOCAB)},) * 2,
            batch_size=32,
            learning_rate=2e-3,
            save_dir=save_dir,
            save_every=10**9,
            plot=False,
            **net,
        )
    params, seq_to_seq_net = book["parameters"], book["seq_to_seq_net"]
    print(f"\ntrained in {time.perf_counter() - start:.1f} s")
    for max_length in (50, 500):
        paddle.layer.reset_names()
        gen = seq_to_seq_net(VOCAB, VOCAB, True, 5, max_length, **net)

        def infer(gen=gen):
            return paddle.infer(output_layer=gen, parameters=params, input=batch, field="id")

        start = time.perf_counter()
        ids, launches = count_launches(infer)
        first = time.perf_counter() - start
        times = []
        for _ in range(rounds):
            start = time.perf_counter()
            ids = infer()
            times.append(time.perf_counter() - start)
        marks = np.where(ids == -1)[0]
        starts = np.concatenate([[0], marks[:-1] + 1])[::5]
        best = [ids[a + 1 : a + 1 + ids[a]].tolist() for a in starts]
        exact = np.mean([b == s[2] for b, s in zip(best, held_out, strict=True)])
        print(
            f"max_length {max_length:3d}: {launches} launch(es) per call, first call "
            f"{first:.2f} s (compiling), then {min(times) * 1e3:.1f} ms; exact {exact:.0%}"
        )


def long_generations(rounds, dim):
    """Milliseconds per ``paddle.infer`` call when every path runs to ``max_length``."""
    book = runner().definitions(CHAPTER)
    net = {"word_vector_dim": dim, "encoder_size": dim, "decoder_size": dim}
    sources = [(s[0],) for s in reversal(64, 1)]
    for max_length in (50, 200, 800):
        paddle.layer.reset_names()
        gen = book.seq_to_seq_net(VOCAB, VOCAB, True, 5, max_length, **net)
        params = paddle.parameters.create(gen)
        for name in params.names():  # the output layer's bias: end-of-sequence unlikely
            if name.endswith("@decoder_group.wbias") and params.get_shape(name) == (1, VOCAB):
                bias = params.get(name)
                bias[0, 1] -= 8.0
                params.set(name, bias)
        inferer = paddle.inference.Inference(parameters=params, output_layer=gen)
        ids = inferer.infer(input=sources, field="id")  # compiles
        times = []
        for _ in range(rounds):
            start = time.perf_counter()
            ids = inferer.infer(input=sources, field="id")
            times.append(time.perf_counter() - start)
        longest = int(np.max(ids[np.concatenate([[0], np.where(ids == -1)[0][:-1] + 1])]))
        print(f"max_length {max_length:3d}: {min(times) * 1e3:.1f} ms per call, longest {longest}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--dim", type=int, default=32)
    parser.add_argument("--long", action="store_true", help="time paths that run to max_length")
    args = parser.parse_args()
    (long_generations if args.long else main)(args.rounds, args.dim)
