#!/usr/bin/env python3
"""An image classifier's inference call, the shape of the profiling
guides' first practice project: pre-processing (a camera frame resized,
scaled to [0, 1] and normalised), a torchvision ResNet, softmax. The
weights are random (nothing is downloaded: the time is the same as with
trained ones) and torch runs on one thread unless --threads says.

As a script, CALLS inference calls on random frames, one summary line:

    python3 pipeline.py [--model resnet50] [--batch 1] [--size 224]
                        [--image 480x640] [--calls 20] [--threads 1]

As a benchmark file (docs/python.md), one benchmark `infer` per batch
size, timed call by call after the warm-up, the first call apart:

    python3 -m yardstick pipeline.py [--batches 1,2,4] [...as above]
                                     [libyardstick's options: --epochs 5]
    yardstick bench -- python3 pipeline.py --bench [...]

Each stage is a yardstick zone ("preprocess", "model", "softmax"), so
`yardstick trace -- python3 pipeline.py` shows what each one costs.
server.py serves the same model. docs/inference.md walks through it.
"""
import argparse
import os
import sys

import torch
import torchvision
import torchvision.transforms.functional as TF

import yardstick

# ImageNet's statistics, which torchvision's ResNets are trained with
MEAN = (0.485, 0.456, 0.406)
STD = (0.229, 0.224, 0.225)
MODELS = ("resnet18", "resnet34", "resnet50", "resnet101", "resnet152")


def build(name):
    """The model `name`, random weights, in inference mode."""
    if name not in MODELS:
        raise ValueError(f"unknown model '{name}' (one of "
                         f"{', '.join(MODELS)})")
    return getattr(torchvision.models, name)(weights=None).eval()


def make_frames(batch, image, seed=0):
    """batch random uint8 camera frames of image = (height, width),
    channels first, as a decoder would hand them over."""
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, 256, (batch, 3) + tuple(image),
                         dtype=torch.uint8, generator=g)


def preprocess(frames, size):
    """uint8 frames (N, 3, H, W) to the model's input (N, 3, size, size):
    resized (bilinear, antialiased), scaled to [0, 1], normalised."""
    with yardstick.zone("preprocess"):
        x = TF.resize(frames, [size, size], antialias=True)
        x = x.float().div_(255)
        return TF.normalize(x, MEAN, STD, inplace=True)


def run_model(model, x):
    with yardstick.zone("model"), torch.inference_mode():
        return model(x)


def classify(logits):
    """The class probabilities (softmax) and the top class of each row."""
    with yardstick.zone("softmax"):
        p = torch.softmax(logits, dim=1)
        return p, p.argmax(dim=1)


def infer(model, frames, size):
    """One inference call: pre-processing, model, softmax."""
    return classify(run_model(model, preprocess(frames, size)))


def image_size(text):
    """'HxW' (480x640) as (480, 640)."""
    try:
        h, w = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"image size '{text}': expected HEIGHTxWIDTH, as 480x640")
    if h < 1 or w < 1:
        raise argparse.ArgumentTypeError(
            f"image size '{text}': both sides at least 1")
    return h, w


def positive(text):
    try:
        v = int(text)
    except ValueError:
        v = 0
    if v < 1:
        raise argparse.ArgumentTypeError(f"'{text}': expected a whole "
                                         "number of at least 1")
    return v


def batch_list(text):
    return [positive(v) for v in text.split(",")]


def parser():
    p = argparse.ArgumentParser(
        description="An image classifier's inference: resize, ResNet, "
        "softmax (random weights).",
        epilog="With --bench (or under `python3 -m yardstick`), the "
        "other options are libyardstick's (--epochs, --filter, --json).")
    p.add_argument("--model", default="resnet50", choices=MODELS)
    p.add_argument("--batch", type=positive, default=1,
                   help="frames per call (the script)")
    p.add_argument("--batches", type=batch_list, default=[1, 2, 4],
                   help="the batch sizes benchmarked (default 1,2,4)")
    p.add_argument("--size", type=positive, default=224,
                   help="the model's input side in pixels (default 224)")
    p.add_argument("--image", type=image_size, default=(480, 640),
                   help="the frames' size, HEIGHTxWIDTH (default 480x640)")
    p.add_argument("--calls", type=positive, default=20,
                   help="inference calls of the script (default 20)")
    p.add_argument("--threads", type=positive, default=1,
                   help="torch's intra-op threads (default 1)")
    p.add_argument("--bench", action="store_true",
                   help="run as benchmarks (implied by `python3 -m "
                   "yardstick`)")
    return p


def register(args):
    """The benchmark `infer`, one instance per batch size: the setup (the
    model, the frames) is not timed; each timed call is infer()."""
    model = build(args.model)

    @yardstick.benchmark(name="infer", params={"batch": args.batches})
    def setup(batch):
        frames = make_frames(batch, args.image)
        return lambda: infer(model, frames, args.size)


def run_script(args):
    model = build(args.model)
    top = None
    for i in range(args.calls):
        _, top = infer(model, make_frames(args.batch, args.image, i),
                       args.size)
    print(f"{args.model}: {args.calls} calls of batch {args.batch} at "
          f"{args.size}x{args.size}; last top class {top.tolist()}")
    return 0


def under_yardstick():
    """Whether `python3 -m yardstick pipeline.py` runs this file, or
    `yardstick bench` (which hands the result over YARDSTICK_BENCH_JSON)."""
    a = sys.orig_argv
    return any(a[i:i + 2] == ["-m", "yardstick"] for i in range(len(a))) \
        or "YARDSTICK_BENCH_JSON" in os.environ


def main(argv):
    args, rest = parser().parse_known_args(argv)
    torch.set_num_threads(args.threads)
    if not (args.bench or under_yardstick()):
        if rest:
            parser().error(f"unknown option '{rest[0]}'")
        return run_script(args)
    register(args)
    return yardstick.main(rest)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
