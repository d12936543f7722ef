"""Run book chapter 4 as the book wrote it (paddle.init(trainer_count=3)) in a fresh process.

Run: python chapter4.py SAVE_DIR [SHARED_DATASETS]

Three CPU host devices must be made before JAX starts, hence a process of its own. With
SHARED_DATASETS holding PTB, trains on its first 3200 5-grams; else on synthetic ones.
Prints one JSON line with the test cost, the metric names and the embedding shape.
"""

import importlib.util
import json
import os
import pathlib
import sys

import numpy as np

import paddle_lite as paddle

RUN_CHAPTER = pathlib.Path(__file__).resolve().parents[3] / "book" / "run_chapter.py"


def readers(shared):
    ptb = pathlib.Path(shared or "/nonexistent") / "imikolov" / "simple-examples" / "data"
    if (ptb / "ptb.train.txt").exists():
        os.environ["PADDLE_LITE_DATA_HOME"] = str(shared)
        word_dict = paddle.dataset.imikolov.build_dict()
        train = paddle.reader.firstn(paddle.dataset.imikolov.train(word_dict, 5), 3200)
        test = paddle.reader.firstn(paddle.dataset.imikolov.test(word_dict, 5), 640)
        return word_dict, train, test
    word_dict = {f"w{i}": i for i in range(60)}  # no PTB files: synthetic 5-grams
    rng = np.random.default_rng(0)
    grams = [tuple(int(v) for v in rng.integers(0, 60, 5)) for _ in range(3200)]
    return word_dict, (lambda: iter(grams)), (lambda: iter(grams[:640]))


def main(save_dir, shared=None):
    spec = importlib.util.spec_from_file_location("run_chapter", RUN_CHAPTER)
    chapter = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(chapter)
    word_dict, train, test = readers(shared)
    state = chapter.run_chapter(
        "04.word2vec",
        num_passes=1,
        word_dict=word_dict,
        train_reader=train,
        test_reader=test,
        save_dir=save_dir,
        plot=False,
    )
    result, embeddings = state["result"], state["embeddings"]
    import jax

    print(
        json.dumps(
            {
                "cost": result.cost,
                "metrics": sorted(result.metrics),
                "embeddings": list(embeddings.shape),
                "words": len(word_dict),
                "devices": len(jax.devices()),
            }
        )
    )


if __name__ == "__main__":
    main(*sys.argv[1:])
