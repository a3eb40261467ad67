//! A task's run in the Transformers export: the held-out problems the page shows, with the
//! run's own answers, and a README section that scores them in Python as the page does (greedy,
//! one token at a time, given tokens written as they are).

use crate::data::TaskData;
use crate::error::Result;
use crate::run::{shown_problems, MAX_SHOWN};
use crate::Run;
use serde_json::json;

pub const PROBLEMS_FILE: &str = "held_out.jsonl";

/// `held_out.jsonl` (a problem a line) and the README's section on scoring it.
pub fn held_out(run: &Run, task: &TaskData, trust: &str) -> Result<(Vec<u8>, String)> {
    let problems = shown_problems(task, MAX_SHOWN);
    let solutions = run.held_out_solutions(MAX_SHOWN)?;
    let tokens = |ids: &[u32]| ids.iter().map(|&id| task.text(&[id])).collect::<Vec<_>>();
    let mut lines = String::new();
    for (problem, solution) in problems.iter().zip(&solutions) {
        let line = json!({
            "prompt": tokens(problem.prompt()),
            "answer": tokens(problem.answer()),
            "given": problem.given,
            "playground_answer": solution.answer,
            "playground_correct": solution.correct,
        });
        lines += &format!("{line}\n");
    }
    let right = solutions.iter().filter(|s| s.correct).count();
    let name = &task.config().name;
    let readme = format!(
        "\n## Held-out problems\n\n\
         This run trains on the task `{name}`. `{PROBLEMS_FILE}` holds {n} of its held-out problems (never \
         trained on), as tokens, with the playground's answers: {right} of {n} right. Greedy answers, one token \
         at a time (a token the task gives is written as it is), score them the same way:\n\n\
         ```python\n\
         import json, torch\n\
         from transformers import AutoModelForCausalLM, AutoTokenizer\n\
         model = AutoModelForCausalLM.from_pretrained(\"this-folder\"{trust}).eval()\n\
         tokenizer = AutoTokenizer.from_pretrained(\"this-folder\"{trust})\n\
         problems = [json.loads(line) for line in open(\"this-folder/{PROBLEMS_FILE}\", encoding=\"utf-8\")]\n\
         right = 0\n\
         for p in problems:\n\
         \x20   ids = tokenizer.convert_tokens_to_ids(p[\"prompt\"])\n\
         \x20   answer = tokenizer.convert_tokens_to_ids(p[\"answer\"])\n\
         \x20   for i, token in enumerate(answer):\n\
         \x20       if i not in p[\"given\"]:\n\
         \x20           with torch.no_grad():\n\
         \x20               token = model(torch.tensor([ids])).logits[0, -1].argmax().item()\n\
         \x20       ids.append(token)\n\
         \x20   right += ids[len(ids) - len(answer):] == answer\n\
         print(f\"{{right}} of {{len(problems)}} held-out problems right\")\n\
         ```\n",
        n = problems.len(),
    );
    Ok((lines.into_bytes(), readme))
}
