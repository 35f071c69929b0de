//! The turns of a synthetic transcript, built from the line kinds of `lines`: the repeating
//! mix, the final turn with the known usage, and the usage-free tail of the worst case.

use serde_json::json;

use super::lines::{CWD, FINAL_USAGE, LineMaker, TRAP_SIDECHAIN_USAGE, Usage, cut};

impl LineMaker {
    /// One turn of the repeating mix (about 45 KiB); `turn` varies ids, paths and usage.
    pub fn turn(&mut self, out: &mut Vec<u8>, turn: u64) -> serde_json::Result<()> {
        // Every main-chain usage sums to less than 142,005 < EXPECTED_TOKENS.
        let usage = |k: u64| Usage {
            input: 3 + (turn + k) % 7,
            cache_creation: 1_000 + (turn * 13 + k) % 997,
            cache_read: 40_000 + (turn * 7_919 + k * 101) % 100_000,
            output: 50 + k * 40,
        };
        let msg = |k: u64| format!("msg_01{turn:016}{k:06}");
        let file = format!("{CWD}/src/billing/invoice_{}.rs", turn % 40);
        let (code, log) = (self.code.clone(), self.log.clone());
        self.user_text(out, false, &format!("Turn {turn}: split the tax rules out of {file} and keep `cargo test` green. Don't touch the public API; add a test for rounding."))?;
        let thinking = json!({"type": "thinking", "thinking": format!("The user wants the tax rules moved out of {file}. I should read it first, then edit, then run the tests. {}", "Consider rounding and the VAT table. ".repeat(20)), "signature": "ErADCkYICxgCKkCs4awX2Vpb".repeat(12)});
        self.assistant(out, false, &msg(0), usage(0), thinking)?;
        let read = self.tool_use(out, &msg(0), usage(0), "Read", json!({"file_path": file}))?;
        let numbered = format!("     1\t{}", code.replace('\n', "\n     ·\t"));
        let result = json!({"type": "text", "file": {"filePath": file, "content": code, "numLines": 160, "startLine": 1, "totalLines": 160}});
        self.tool_result(out, false, &read, &numbered, result)?;
        let old = cut(&code, 200, 500);
        let new = format!("{old}\n// rounding: half up");
        let edit = self.tool_use(
            out,
            &msg(1),
            usage(1),
            "Edit",
            json!({"file_path": file, "old_string": old, "new_string": new, "replace_all": false}),
        )?;
        let patch = json!([{"oldStart": 12, "oldLines": 6, "newStart": 12, "newLines": 7, "lines": [format!("-{old}"), format!("+{new}")]}]);
        let result = json!({"filePath": file, "oldString": old, "newString": new, "originalFile": code, "structuredPatch": patch, "userModified": false, "replaceAll": false});
        self.tool_result(
            out,
            false,
            &edit,
            &format!("The file {file} has been updated."),
            result,
        )?;
        let new_file = format!("{CWD}/src/billing/tax_{turn}.rs");
        let body = cut(&code, 0, 3 * 1024);
        let write = self.tool_use(
            out,
            &msg(2),
            usage(2),
            "Write",
            json!({"file_path": new_file, "content": body}),
        )?;
        let result =
            json!({"type": "create", "filePath": new_file, "content": body, "structuredPatch": []});
        self.tool_result(
            out,
            false,
            &write,
            &format!("File created successfully at: {new_file}"),
            result,
        )?;
        let todos = json!([
            {"content": format!("Move tax rules of turn {turn} to tax.rs"), "status": "completed", "activeForm": "Moving tax rules"},
            {"content": "Add a rounding test", "status": "in_progress", "activeForm": "Adding a rounding test"},
            {"content": "Run cargo test", "status": "pending", "activeForm": "Running cargo test"}
        ]);
        let todo = self.tool_use(out, &msg(3), usage(3), "TodoWrite", json!({"todos": todos}))?;
        let result = json!({"oldTodos": [], "newTodos": todos});
        self.tool_result(out, false, &todo, "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress.", result)?;
        let bash = self.tool_use(
            out,
            &msg(4),
            usage(4),
            "Bash",
            json!({"command": "cargo test -p shop", "description": "Run the tests"}),
        )?;
        self.progress(out, &bash, "running 118 tests")?;
        let result = json!({"stdout": log, "stderr": "", "interrupted": false, "isImage": false});
        self.tool_result(out, false, &bash, &log, result)?;
        if turn.is_multiple_of(3) {
            self.sidechain(out, turn)?;
        }
        let answer = json!({"type": "text", "text": format!("Done: the tax rules now live in tax_{turn}.rs and all 118 tests pass.")});
        self.assistant(out, false, &msg(5), usage(5), answer)?;
        self.stop_summary(out)?;
        LineMaker::snapshot(out, turn)
    }

    /// An inline subagent exchange (Claude Code 1.x wrote these into the main transcript).
    fn sidechain(&mut self, out: &mut Vec<u8>, turn: u64) -> serde_json::Result<()> {
        self.user_text(
            out,
            true,
            "Find every caller of line_total in the workspace and report file:line.",
        )?;
        let usage = Usage {
            input: 4,
            cache_creation: 900 + turn % 50,
            cache_read: 11_000 + turn % 3_000,
            output: 200,
        };
        let id = format!("msg_01side{turn:016}");
        let tool_id = format!("toolu_side{turn:016}");
        let grep = json!({"type": "tool_use", "id": tool_id, "name": "Grep", "input": {"pattern": "line_total", "path": CWD}});
        self.assistant(out, true, &id, usage, grep)?;
        let hits = cut(&self.log, 0, 2 * 1024).to_owned();
        let result = json!({"mode": "content", "numFiles": 4, "filenames": [], "content": hits, "numLines": 30});
        self.tool_result(out, true, &tool_id, &hits, result)
    }

    /// The last turn: its final assistant lines carry [`FINAL_USAGE`] (two lines of one
    /// response, as Claude Code streams them). Unless `minimal`, lines every reader must skip
    /// follow: a system summary, a sidechain usage, a synthetic API-error line with zero usage, a
    /// progress line and a file-history snapshot.
    pub fn final_turn(&mut self, out: &mut Vec<u8>, minimal: bool) -> serde_json::Result<()> {
        let id = "msg_01FINAL000000000000000000";
        self.user_text(out, false, "Commit this.")?;
        if !minimal {
            let thinking = json!({"type": "thinking", "thinking": "The tests pass; commit with a message that says why.", "signature": "ErADCkYICxgCKkCs"});
            self.assistant(out, false, id, FINAL_USAGE, thinking)?;
        }
        self.assistant(
            out,
            false,
            id,
            FINAL_USAGE,
            json!({"type": "text", "text": "Committed."}),
        )?;
        if minimal {
            return Ok(());
        }
        self.stop_summary(out)?;
        let trap = json!({"type": "text", "text": "Subagent finished."});
        self.assistant(
            out,
            true,
            "msg_01TRAPSIDECHAIN0000000000",
            TRAP_SIDECHAIN_USAGE,
            trap,
        )?;
        let error = json!({
            "type": "assistant", "isApiErrorMessage": true,
            "message": {"model": "<synthetic>", "id": "msg_synthetic", "type": "message", "role": "assistant",
                "content": [{"type": "text", "text": "API Error: Request was aborted."}],
                "usage": {"input_tokens": 0, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 0}}
        });
        self.line(out, false, error)?;
        self.progress(out, "toolu_hook", "SessionEnd hook running")?;
        LineMaker::snapshot(out, u64::MAX)
    }

    /// Lines without any usage record (tool results, progress lines, snapshots): the tail of the
    /// worst case, which a reader must scan through before it finds a usage line.
    pub fn no_usage_block(&mut self, out: &mut Vec<u8>, k: u64) -> serde_json::Result<()> {
        let tool_id = format!("toolu_tail{k:016}");
        for _ in 0..3 {
            self.progress(out, &tool_id, "still running")?;
        }
        let big = format!("{}{}", self.log, self.code);
        let result = json!({"stdout": big, "stderr": "", "interrupted": false, "isImage": false});
        self.tool_result(out, false, &tool_id, &big, result)?;
        LineMaker::snapshot(out, k)
    }
}
