"""``courtbench generate slds --local-model PATH``: the same headnote file, from transformers.

For a small (e.g. fine-tuned 0.5B) model without a server: the items of
:func:`slds.prompting.headnote_items` (same prompts, same shots), rendered with the model's
chat template, the decision cut in tokens when prompt + ``--max-tokens`` exceed
``--max-model-len``; sampled with ``--temperature`` / ``--top-p``, the generator reseeded with
``--seed`` before every sample (a sample's text does not depend on the others). Writes the
same JSON Lines file and manifest as the endpoint path (``model`` is the folder, with its
sha256 and the device). A folder holding a LoRA adapter (``adapter_config.json``) is loaded
on its base model with peft.

This path stays beside Inspect's ``hf/`` provider on purpose: that provider batches the samples
in flight and seeds its generator once per model, so a sample's text would depend on its batch
neighbours; here each sample is generated alone after reseeding, and a decision is cut in
tokens to fit ``--max-model-len``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tqdm.auto import tqdm

from courtbench.errors import CourtbenchError
from courtbench.inspect_glue.reasoning import split_reasoning
from courtbench.output_files import write_output_file
from courtbench.training import extra
from courtbench.training.manifest import device_info, folder_hash
from slds.generate import (
    OUTPUT_KIND,
    Generation,
    Prompts,
    check_options,
    manifest_document,
    output_lines,
    prepared_items,
    render_user,
    sampling_params,
    summed_usage,
)
from slds.training.examples import check_chat_template, prompt_ids


def load_local(path: Path):
    """``(model, tokenizer)`` on the GPU when there is one (bf16 where supported), else CPU."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    cuda = torch.cuda.is_available()
    dtype = torch.bfloat16 if cuda and torch.cuda.is_bf16_supported() else torch.float32
    try:
        tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
        if (path / "adapter_config.json").is_file():
            extra.require(("peft",), command="--local-model with a LoRA adapter")
            from peft import AutoPeftModelForCausalLM

            model = AutoPeftModelForCausalLM.from_pretrained(str(path), dtype=dtype,
                                                             local_files_only=True)
        else:
            model = AutoModelForCausalLM.from_pretrained(str(path), dtype=dtype,
                                                         local_files_only=True)
    except (OSError, ValueError) as error:
        raise CourtbenchError(f"--local-model {path}: cannot load a causal LM with transformers: "
                              f"{str(error).splitlines()[0]}") from None
    check_chat_template(tokenizer, f"--local-model {path}")
    return model.to("cuda" if cuda else "cpu").eval(), tokenizer


def _generate_one(model, tokenizer, ids: list[int], params: dict) -> Generation:
    import torch

    torch.manual_seed(params["seed"])
    inputs = torch.tensor([ids], device=model.device)
    sample = params["temperature"] > 0
    with torch.no_grad():
        output = model.generate(inputs, attention_mask=torch.ones_like(inputs),
                                max_new_tokens=params["max_tokens"], do_sample=sample,
                                temperature=params["temperature"] if sample else None,
                                top_p=params["top_p"] if sample else None, top_k=None,
                                pad_token_id=tokenizer.pad_token_id or tokenizer.eos_token_id,
                                eos_token_id=tokenizer.eos_token_id)
    new = output[0, len(ids):].tolist()
    stopped = tokenizer.eos_token_id in new
    if stopped:
        new = new[:new.index(tokenizer.eos_token_id)]
    answer, reasoning, _ = split_reasoning(tokenizer.decode(new, skip_special_tokens=True).strip())
    usage = {"prompt_tokens": len(ids), "completion_tokens": len(new) + stopped,
             "total_tokens": len(ids) + len(new) + stopped}
    return Generation(answer, reasoning, "stop" if stopped else "length", usage)


def _token_prompts(tokenizer, prompts: Prompts, items, budget: int):
    """Per item, its prompt ids within ``budget``; and how many decisions were cut."""
    encoded, cut = [], 0
    for item in items:
        language = item["headnote_language"]
        head = list(item["messages"][:-1])

        def render(decision, head=head, language=language):
            return (*head, {"role": "user", "content": render_user(prompts.user, decision,
                                                                   language)})

        ids, was_cut = prompt_ids(tokenizer, render, item["decision"], budget)
        encoded.append(ids)
        cut += was_cut
    return encoded, cut


def generate(args: argparse.Namespace) -> int:
    """The ``courtbench generate slds`` entry point: ``--local-model`` runs here, everything
    else goes to the endpoint path (:func:`slds.generate.generate`)."""
    if args.local_model is None:
        from slds import generate as endpoint

        return endpoint.generate(args)
    configs, prompts, _ = check_options(args)
    return generate_local(args, configs, prompts)


def generate_local(args: argparse.Namespace, configs: list[str], prompts: Prompts) -> int:
    """``generate slds`` with ``--local-model``; returns 0 (a local run has no failed request)."""
    extra.require(("torch", "transformers"), command="generate slds --local-model")
    params = sampling_params(args)
    if args.dry_run or args.max_model_len <= params["max_tokens"]:
        raise CourtbenchError("--local-model: --dry-run is for endpoints; --max-model-len must "
                              "exceed --max-tokens")
    model_hash = folder_hash(args.local_model, "--local-model")
    items, counts = prepared_items(args, configs, prompts)
    model, tokenizer = load_local(args.local_model)
    encoded, token_cut = _token_prompts(tokenizer, prompts, items,
                                        args.max_model_len - params["max_tokens"])
    results = [_generate_one(model, tokenizer, ids, params)
               for ids in tqdm(encoded, desc="slds generate (local)", file=sys.stderr)]
    usage = summed_usage(results)
    data, line_counts = output_lines(items, results)
    line_counts.pop("failures_by_kind")
    line_counts.update(counts, decisions_cut_to_fit_tokens=token_cut, samples=len(items),
                       sent=len(items), cached=0)
    described = {"model": str(args.local_model), "backend": "transformers (local)",
                 "model_sha256": model_hash["sha256"], "max_model_len": args.max_model_len,
                 **device_info()}
    manifest = write_output_file(args.out, data, manifest_document(
        args, configs, prompts, described, params, line_counts, usage), kind=OUTPUT_KIND)
    print(f"{len(items)} headnotes → {args.out} ({line_counts['ok']} ok, "
          f"{line_counts['empty']} empty; {token_cut} decisions cut to {args.max_model_len} "
          f"tokens; {usage['total_tokens']:,} tokens); manifest {manifest}")
    return 0
