//! Which successful shell commands a reader keeps the output of. Most output (file contents,
//! build logs, search hits) is the bulk of a transcript and is reported without its text; a
//! few commands' output says what happened where the exit status does not: a `git commit`'s
//! names the new commit, and an HTTP request's answer may say it failed though the client
//! exited 0 (`{"status":"error"}`, `HTTP/1.1 500`).

/// Programs that make HTTP requests and print the answer.
pub(crate) const HTTP_CLIENTS: &[&str] = &[
    "curl",
    "curl.exe",
    "wget",
    "http",
    "https",
    "xh",
    "Invoke-WebRequest",
    "Invoke-RestMethod",
    "iwr",
    "irm",
];

/// Whether a successful run of `command` is read with its output. A word that names an HTTP
/// client anywhere in the line counts: keeping a little more text than needed costs less than
/// missing an answer that said the request failed.
pub(crate) fn output_is_read(command: &str) -> bool {
    command.contains("git commit")
        || command
            .split(|c: char| c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | '`'))
            .any(is_http_client)
}

/// Whether `program` (a path or a bare name) is an HTTP client.
pub(crate) fn is_http_client(program: &str) -> bool {
    let name = program.rsplit(['/', '\\']).next().unwrap_or(program).trim();
    HTTP_CLIENTS.iter().any(|c| c.eq_ignore_ascii_case(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commits_and_http_requests_are_read_and_other_output_is_not() {
        for command in [
            "git commit -m 'x'",
            "curl -s http://localhost:8888/health",
            "sleep 8 && /usr/bin/curl -X POST http://x/notify \\\n -d '{}'",
            "Invoke-RestMethod -Uri http://localhost:3000/api",
            "cd /app; wget -qO- http://x",
        ] {
            assert!(output_is_read(command), "{command}");
        }
        for command in [
            "cargo test",
            "cat curl.txt",
            "grep -r curling src",
            "ls https-proxy",
        ] {
            assert!(!output_is_read(command), "{command}");
        }
    }
}
