"""``courtbench generate slds --local-model PATH``: the same headnote file, from transformers.

For a small (e.g. fine-tuned 0.5B) model without a server: the requests of
:func:`slds.generate.build_requests` (same prompts, same shots), rendered with the model's
chat template, the decision cut in tokens when prompt + ``--max-tokens`` exceed
``--max-model-len``; sampled with ``--temperature`` / ``--top-p``, the generator reseeded with
``--seed`` before every sample (a sample's text does not depend on the others). Writes the
same JSON Lines file and manifest as the endpoint path (``model`` is the folder, with its
sha256 and the device). A folder holding a LoRA adapter (``adapter_config.json``) is loaded
on its base model with peft.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tqdm.auto import tqdm

from courtbench.errors import CourtbenchError
from courtbench.llm import ChatResult, RunSummary, split_reasoning
from courtbench.output_files import write_output_file
from courtbench.training import extra
from courtbench.training.manifest import device_info, folder_hash
from slds.generate import (
    OUTPUT_KIND,
    Prompts,
    build_requests,
    check_options,
    input_cut,
    manifest_document,
    output_lines,
    render_user,
    sampling_params,
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


def _generate_one(model, tokenizer, request_id: str, ids: list[int], params: dict) -> ChatResult:
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
    return ChatResult(request_id, answer, reasoning, "stop" if stopped else "length", usage,
                      None, False)


def _token_prompts(tokenizer, prompts: Prompts, samples, requests, budget: int):
    """Per request, its prompt ids within ``budget``; and how many decisions were cut."""
    encoded, cut = [], 0
    for sample, request in zip(samples, requests, strict=True):
        language = sample.config.split("_")[1]
        head = list(request.messages[:-1])

        def render(decision, head=head, language=language):
            return (*head, {"role": "user", "content": render_user(prompts.user, decision,
                                                                   language)})

        ids, was_cut = prompt_ids(tokenizer, render, sample.decision, budget)
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
    samples, requests, counts = build_requests(args.data, configs, args.split, args.shots,
                                               prompts, params, input_cut(args))
    if not requests:
        raise CourtbenchError(f"--data {args.data}: split {args.split!r} has no sample in "
                              f"{', '.join(configs)}")
    model, tokenizer = load_local(args.local_model)
    encoded, token_cut = _token_prompts(tokenizer, prompts, samples, requests,
                                        args.max_model_len - params["max_tokens"])
    results = [_generate_one(model, tokenizer, request.id, ids, params) for request, ids in
               tqdm(list(zip(requests, encoded, strict=True)), desc="slds generate (local)",
                    file=sys.stderr)]
    usage = {key: sum(r.usage[key] for r in results)
             for key in ("prompt_tokens", "completion_tokens", "total_tokens")}
    summary = RunSummary(results, sent=len(results), cached=0, failed=0, usage=usage)
    data, line_counts = output_lines(samples, results)
    line_counts.update(counts, decisions_cut_to_fit_tokens=token_cut)
    described = {"model": str(args.local_model), "backend": "transformers (local)",
                 "model_sha256": model_hash["sha256"], "max_model_len": args.max_model_len,
                 **device_info()}
    manifest = write_output_file(args.out, data, manifest_document(
        args, configs, prompts, described, params, line_counts, summary), kind=OUTPUT_KIND)
    print(f"{len(samples)} headnotes → {args.out} ({line_counts['ok']} ok, "
          f"{line_counts['empty']} empty; {token_cut} decisions cut to {args.max_model_len} "
          f"tokens; {usage['total_tokens']:,} tokens); manifest {manifest}")
    return 0
