"""Signatures of v2's dataset modules, ``paddle.v2.image``, ``plot`` and ``master``.

Their sources are not among the stored v2 files, so their public functions' ``def`` lines
are copied here, read from PaddlePaddle/Paddle ``python/paddle/v2/dataset/<module>.py``,
``python/paddle/v2/image.py``, ``python/paddle/v2/plot/plot.py`` and
``python/paddle/v2/master/client.py`` at the newest commit the source index holds for each
file:

=============  ==========================================
cifar          91d7838ff1458b41b97895d2f5e1f026a875df48
common         54a748d4d00fc643d010394005239ff5154e0ca6
conll05        6423bd0e777e4c10bf82ca539f5b76203636790a
flowers        28a0ac535a779b7be1d13388554f6aed41b8689d
imdb           ae2b3cdc576d9adceb32e39e523f2926a8dad6ec
imikolov       5a61222a7983811c054a04fc58f0abad9c0cdbee
mnist          7f83f83bced9e23af733536db7144680d0f62c8a
movielens      d8d9ef621aa021ad59bd6682ad3d4cca699093a4
mq2007         217186edc581ddf8c1795e7698d62cf2b81acab0
sentiment      3f5dfc67752d885d2a4bb777fa27cf04d7927e06
uci_housing    bfe7e2424385ecedaab7d574e4cd580709080893
wmt14          b845b6158e3f9e478f23fe71a1622e8a312322b1
wmt16          4e554f5addae5be19e32160807a7f192877b2e2c
image          e9f516773f7fe3dacad61eab436e1be8d8299ec9
plot           291c8a86faeaf637275c58bcb9644995a2e47d44
master         96ee7d5c1739c35f668f6c8381e9d9d4690244ad
=============  ==========================================

voc2012's v2 file is not in that index; its ``train()``, ``test()`` and ``val()`` are
compared with the same functions of the later ``python/paddle/dataset/voc2012.py`` (the
module v2's was moved to, unchanged in these signatures). ``movielens.train/test`` are
``functools.partial(__reader_creator__, is_test=...)`` over ``__reader__(rand_seed=0,
test_ratio=0.1, is_test=False)`` and ``mq2007.train/test`` are ``functools.partial(__reader__,
filepath=...)`` over ``__reader__(filepath, format="pairwise", shuffle=True,
fill_missing=-1)``: their remaining parameters are reachable by keyword only, written ``*,``.
common's ``cPickle.dump``/``cPickle.load`` defaults are written ``pickle.dump``/``pickle.load``
(Python 3's name for the same functions).
"""

from __future__ import annotations

import ast

from integration import v2_signatures as vs

_FLOWERS = "(mapper=train_mapper, buffered_size=1024, use_xmap=True)"
_WMT16 = "(src_dict_size, trg_dict_size, src_lang='en')"
_TRANSFORM = "(FIRST, resize_size, crop_size, is_train, is_color=True, mean=None)"

DEFS = {
    "dataset.cifar": {
        "train100": "()",
        "test100": "()",
        "train10": "()",
        "test10": "()",
        "fetch": "()",
        "convert": "(path)",
    },
    "dataset.common": {
        "md5file": "(fname)",
        "download": "(url, module_name, md5sum, save_name=None)",
        "fetch_all": "()",
        "split": "(reader, line_count, suffix='%05d.pickle', dumper=pickle.dump)",
        "cluster_files_reader": "(files_pattern, trainer_count, trainer_id, loader=pickle.load)",
        "convert": "(output_path, reader, line_count, name_prefix)",
    },
    "dataset.conll05": {
        "get_dict": "()",
        "get_embedding": "()",
        "test": "()",
        "fetch": "()",
        "convert": "(path)",
        "load_dict": "(filename)",
        "load_label_dict": "(filename)",
    },
    "dataset.flowers": {
        "train": _FLOWERS,
        "test": _FLOWERS.replace("train_mapper", "test_mapper"),
        "valid": _FLOWERS.replace("train_mapper", "test_mapper"),
        "fetch": "()",
    },
    "dataset.imdb": {
        "build_dict": "(pattern, cutoff)",
        "train": "(word_idx)",
        "test": "(word_idx)",
        "word_dict": "(cutoff=150)",
        "fetch": "()",
        "convert": "(path)",
    },
    "dataset.imikolov": {
        "build_dict": "(min_word_freq=50)",
        "train": "(word_idx, n, data_type=DataType.NGRAM)",
        "test": "(word_idx, n, data_type=DataType.NGRAM)",
        "fetch": "()",
        "convert": "(path)",
    },
    "dataset.mnist": {"train": "()", "test": "()", "fetch": "()", "convert": "(path)"},
    "dataset.movielens": {
        "train": "(*, rand_seed=0, test_ratio=0.1)",
        "test": "(*, rand_seed=0, test_ratio=0.1)",
        "get_movie_title_dict": "()",
        "max_movie_id": "()",
        "max_user_id": "()",
        "max_job_id": "()",
        "movie_categories": "()",
        "user_info": "()",
        "movie_info": "()",
        "fetch": "()",
        "convert": "(path)",
    },
    "dataset.mq2007": {
        "train": "(*, format='pairwise', shuffle=True, fill_missing=-1)",
        "test": "(*, format='pairwise', shuffle=True, fill_missing=-1)",
        "fetch": "()",
    },
    "dataset.sentiment": {
        "train": "()",
        "test": "()",
        "get_word_dict": "()",
        "fetch": "()",
        "convert": "(path)",
    },
    "dataset.uci_housing": {
        "train": "()",
        "test": "()",
        "model": "()",
        "fetch": "()",
        "convert": "(path)",
    },
    "dataset.voc2012": {"train": "()", "test": "()", "val": "()"},
    "dataset.wmt14": {
        "train": "(dict_size)",
        "test": "(dict_size)",
        "gen": "(dict_size)",
        "model": "()",
        "get_dict": "(dict_size, reverse=True)",
        "fetch": "()",
        "convert": "(path)",
    },
    "dataset.wmt16": {
        "train": _WMT16,
        "test": _WMT16,
        "validation": _WMT16,
        "get_dict": "(lang, dict_size, reverse=False)",
        "fetch": "()",
        "convert": "(path, src_dict_size, trg_dict_size, src_lang)",
    },
    "image": {
        "batch_images_from_tar": "(data_file, dataset_name, img2label, num_per_batch=1024)",
        "load_image_bytes": "(bytes, is_color=True)",
        "load_image": "(file, is_color=True)",
        "resize_short": "(im, size)",
        "to_chw": "(im, order=(2, 0, 1))",
        "center_crop": "(im, size, is_color=True)",
        "random_crop": "(im, size, is_color=True)",
        "left_right_flip": "(im)",
        "simple_transform": _TRANSFORM.replace("FIRST", "im"),
        "load_and_transform": _TRANSFORM.replace("FIRST", "filename"),
    },
    "master": {
        "client": "(etcd_endpoints, timeout_sec, buf_size=0)",
        "client.request_save_model": "(trainer_id, block_ms)",
        "client.release": "()",
        "client.set_dataset": "(paths)",
        "client.next_record": "()",
        "client.paddle_start_get_records": "(pass_id)",
    },
    "plot": {
        "Ploter": "(*args)",
        "Ploter.append": "(title, step, value)",
        "Ploter.plot": "(path=None)",
        "Ploter.reset": "()",
    },
}


def _sig(where: str, params: str) -> vs.Sig:
    fn = ast.parse(f"def f{params}: pass").body[0]
    assert isinstance(fn, ast.FunctionDef)
    sig = vs.sig_of(fn, where)
    kw = fn.args
    keyword = tuple(
        vs.Param(a.arg, vs._const(d), keyword_only=True)
        for a, d in zip(kw.kwonlyargs, kw.kw_defaults, strict=True)
    )
    return vs.Sig(where, sig.params + keyword, sig.varargs, sig.varkw)


def fetched_surface() -> dict[str, vs.Sig]:
    return {
        f"{module}.{name}": _sig(f"{module}.{name}", params)
        for module, defs in DEFS.items()
        for name, params in defs.items()
    }
