//! Whether an HTTP request made from the shell got an answer that says it failed.
//!
//! `curl` exits 0 whatever the server answers: `{"status":"error","message":"Failed to parse
//! JSON"}` or `HTTP/1.1 500` still count as a command that worked by its exit status. Taken at
//! its word, such a call became a "command that worked" to repeat, and the failure it was never
//! showed. So a request whose answer is an error object, or whose last status line is 4xx or
//! 5xx, failed. Only the answer's own top level is read: an `"error"` key deep inside a list of
//! records is data, not the outcome.

use serde_json::{Map, Value};

use super::commands::programs;
use crate::readers::shell_output::is_http_client;

/// A line longer than this is not read as an answer object (a page of data, not a verdict).
const ANSWER_CHARS: usize = 64 * 1024;

/// True when `command` makes an HTTP request whose answer, in `output`, says it failed.
#[cfg(test)]
pub(crate) fn answer_says_error(command: &str, output: &str) -> bool {
    error_answer(command, output).is_some()
}

/// The line of `output` that says `command`'s HTTP request failed: its last status line, else
/// the answer object. That line is what a failure shows, without the client's progress meter.
pub(crate) fn error_answer<'o>(command: &str, output: &'o str) -> Option<&'o str> {
    // Piped on, the answer is what another program made of it.
    if output.is_empty()
        || command.contains(" | ")
        || !programs(command).iter().any(|p| is_http_client(p))
    {
        return None;
    }
    error_status(output).or_else(|| output.lines().map(str::trim).find(|l| error_object(l)))
}

/// The last HTTP status line (`HTTP/1.1 404 Not Found`, `< HTTP/2 500` with `-v`) is 4xx or
/// 5xx: the last, because a redirect or `100 Continue` comes before the real answer.
fn error_status(output: &str) -> Option<&str> {
    let (line, code) = output.lines().rev().find_map(|line| {
        let rest = line.trim_start_matches(['<', ' ']).strip_prefix("HTTP/")?;
        let mut words = rest.split_whitespace();
        words.next()?;
        let code = words.next()?;
        let code = (code.len() == 3).then(|| code.parse::<u16>().ok())??;
        Some((line.trim(), code))
    })?;
    (400..600).contains(&code).then_some(line)
}

/// A line that is a JSON object saying the request failed.
fn error_object(line: &str) -> bool {
    let line = line.trim();
    if !(line.starts_with('{') && line.ends_with('}')) || line.len() > ANSWER_CHARS {
        return false;
    }
    match serde_json::from_str::<Map<String, Value>>(line) {
        Ok(answer) => says_failed(&answer),
        Err(_) => false,
    }
}

fn says_failed(answer: &Map<String, Value>) -> bool {
    let status = answer
        .get("status")
        .and_then(Value::as_str)
        .map(str::to_ascii_lowercase);
    let failed_status = matches!(
        status.as_deref(),
        Some("error" | "fail" | "failed" | "failure")
    );
    let flag_false = |key: &str| answer.get(key).and_then(Value::as_bool) == Some(false);
    let error = answer.get("error").is_some_and(|e| match e {
        Value::Null | Value::Bool(false) => false,
        Value::String(s) => !s.trim().is_empty(),
        Value::Object(o) => !o.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Bool(true) | Value::Number(_) => true,
    });
    let errors = answer
        .get("errors")
        .and_then(Value::as_array)
        .is_some_and(|a| !a.is_empty());
    failed_status || flag_false("success") || flag_false("ok") || error || errors
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOTIFY: &str = "curl -X POST http://localhost:8888/notify \\\n  -H \"Content-Type: application/json\" \\\n  -d '{\"message\": \"BRILLIANT! I am Carson\"}'";

    #[test]
    fn an_answer_that_says_it_failed_is_a_failure() {
        let progress = "\n  % Total    % Received % Xferd  Average Speed\n";
        for answer in [
            r#"{"status":"error","message":"Failed to parse JSON"}"#,
            r#"{"success": false, "message": "Message too long (max 500 characters)"}"#,
            r#"{"ok":false,"error":"not_authed"}"#,
            r#"{"error": {"code": 401, "message": "bad key"}}"#,
            r#"{"data": null, "errors": [{"message": "Cannot query field"}]}"#,
        ] {
            let output = format!("{answer}{progress}");
            assert!(answer_says_error(NOTIFY, &output), "{answer}");
        }
        let headers = "HTTP/1.1 301 Moved\nLocation: /x\n\nHTTP/1.1 503 Service Unavailable\n";
        assert!(answer_says_error(
            "curl -iL https://api.example.com",
            headers
        ));
        assert!(answer_says_error(
            "curl -v https://api.example.com",
            "< HTTP/2 404 \n< content-type: text/html"
        ));
        assert!(answer_says_error(
            "Invoke-RestMethod -Uri http://localhost:3000/api",
            r#"{"status": "FAILED"}"#
        ));
    }

    #[test]
    fn an_answer_that_worked_or_is_only_data_is_not() {
        for answer in [
            r#"{"status":"success","message":"Notification sent"}"#,
            r#"{"status": "ok", "error": null, "errors": []}"#,
            r#"{"items": [{"error": "row 3 is empty"}], "ok": true}"#,
            r#"{"error": "", "success": true}"#,
            "HTTP/1.1 404 Not Found\n\nHTTP/1.1 200 OK",
            "{not json at all}",
            "200",
        ] {
            assert!(!answer_says_error(NOTIFY, answer), "{answer}");
        }
        // Not a request, or its answer piped on to another program.
        let failed = r#"{"status":"error"}"#;
        assert!(!answer_says_error("cat answer.json", failed));
        assert!(!answer_says_error("echo '{\"status\":\"error\"}'", failed));
        assert!(!answer_says_error(
            "curl -s http://x/api | jq .status",
            failed
        ));
        // A long page of data is not read as a verdict.
        let long = format!(
            r#"{{"status":"error","pad":"{}"}}"#,
            "x".repeat(ANSWER_CHARS)
        );
        assert!(!answer_says_error(NOTIFY, &long));
    }
}
