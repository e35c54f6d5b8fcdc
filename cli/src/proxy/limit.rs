//! `--max-message`: a bound on every message the proxy reads over stdio, from the client or from
//! the server. Messages are lines of JSON; [`LineLimit`] hands rmcp whole lines only, and a line
//! that grows past the bound is never held whole: what was read of it is dropped, the rest is
//! skipped as it arrives, and a short line takes its place so the sender gets an answer:
//! - a request (it has `method` and `id`) becomes the request [`OVERSIZED`], which the proxy
//!   answers with a JSON-RPC error under the same id;
//! - a response (`id` without `method`) becomes a JSON-RPC error response with that id, so the
//!   request waiting for it fails instead of waiting;
//! - a notification, or a message whose `id` is not in its first `max` bytes, is dropped (said
//!   on stderr).

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use serde_json::json;
use tokio::io::{AsyncRead, ReadBuf};

/// The method of the request that stands for one over the bound.
pub const OVERSIZED: &str = "toolschema/oversized";

/// Reads lines of at most `max` bytes from `inner`; see the module documentation.
pub struct LineLimit<R> {
    inner: R,
    max: usize,
    /// Who writes to `inner`, for messages: "the client", "the server".
    from: &'static str,
    /// The line being read.
    line: Vec<u8>,
    /// Ready for rmcp: whole lines.
    out: Vec<u8>,
    taken: usize,
    /// Skipping the rest of a line over the bound.
    skipping: bool,
    eof: bool,
}

impl<R> LineLimit<R> {
    /// Bounds the lines read from `inner` to `max` bytes; `from` names the writer in messages.
    pub fn new(inner: R, max: usize, from: &'static str) -> Self {
        LineLimit {
            inner,
            max: max.max(64),
            from,
            line: Vec::new(),
            out: Vec::new(),
            taken: 0,
            skipping: false,
            eof: false,
        }
    }

    fn take_bytes(&mut self, bytes: &[u8]) {
        for part in bytes.split_inclusive(|b| *b == b'\n') {
            let ends = part.last() == Some(&b'\n');
            if self.skipping {
                if ends {
                    self.skipping = false;
                }
                continue;
            }
            self.line.extend_from_slice(part);
            if self.line.len() > self.max + usize::from(ends) {
                let prefix = std::mem::take(&mut self.line);
                if let Some(stand_in) = stand_in(&prefix, self.max, self.from) {
                    self.out.extend_from_slice(stand_in.as_bytes());
                    self.out.push(b'\n');
                }
                self.skipping = !ends;
            } else if ends {
                self.out.append(&mut self.line);
            }
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for LineLimit<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        dst: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        loop {
            if this.taken < this.out.len() {
                let n = dst.remaining().min(this.out.len() - this.taken);
                dst.put_slice(&this.out[this.taken..this.taken + n]);
                this.taken += n;
                if this.taken == this.out.len() {
                    this.out.clear();
                    this.taken = 0;
                }
                return Poll::Ready(Ok(()));
            }
            if this.eof {
                return Poll::Ready(Ok(()));
            }
            let mut chunk = [0u8; 16 * 1024];
            let mut buf = ReadBuf::new(&mut chunk);
            match Pin::new(&mut this.inner).poll_read(cx, &mut buf) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Ready(Ok(())) => {
                    let filled = buf.filled();
                    if filled.is_empty() {
                        this.eof = true;
                        // A last line without its newline is still a message.
                        if !this.skipping && !this.line.is_empty() {
                            let mut line = std::mem::take(&mut this.line);
                            this.out.append(&mut line);
                        }
                    } else {
                        let bytes = filled.to_vec();
                        this.take_bytes(&bytes);
                    }
                }
            }
        }
    }
}

/// The line that replaces a message over the bound, from its first bytes.
fn stand_in(prefix: &[u8], max: usize, from: &str) -> Option<String> {
    let fields = top_level(prefix);
    let id = fields
        .iter()
        .find(|(k, _)| k == "id")
        .map(|(_, v)| v.clone());
    let is_request = fields.iter().any(|(k, _)| k == "method");
    let id = id.and_then(|raw| serde_json::from_str::<serde_json::Value>(&raw).ok());
    match (id, is_request) {
        (Some(id), true) => {
            eprintln!(
                "toolschema proxy: a request from {from} (id {id}) is over --max-message ({max} bytes) and was refused"
            );
            Some(
                json!({"jsonrpc": "2.0", "id": id, "method": OVERSIZED, "params": {"limit": max}})
                    .to_string(),
            )
        }
        (Some(id), false) => {
            eprintln!(
                "toolschema proxy: a response from {from} (id {id}) is over --max-message ({max} bytes) and was refused"
            );
            Some(
                json!({"jsonrpc": "2.0", "id": id, "error": {
                    "code": -32600,
                    "message": format!("the response is over the proxy's --max-message limit of {max} bytes and was not read")
                }})
                .to_string(),
            )
        }
        (None, _) => {
            eprintln!(
                "toolschema proxy: a message from {from} without an id in its first {max} bytes is over --max-message and was dropped"
            );
            None
        }
    }
}

/// The top-level members of a JSON object whose text may be cut short: each key with its value's
/// raw text when the value is a string, number, boolean or null (complete within `text`).
fn top_level(text: &[u8]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    let mut key: Option<String> = None;
    let mut expecting_value = false;
    while i < text.len() {
        let b = text[i];
        match b {
            b'"' => {
                let start = i;
                i += 1;
                while i < text.len() && text[i] != b'"' {
                    if text[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                if i >= text.len() {
                    break;
                }
                let raw = &text[start..=i];
                if depth == 1 {
                    if expecting_value {
                        if let Some(k) = key.take() {
                            out.push((k, String::from_utf8_lossy(raw).into_owned()));
                        }
                        expecting_value = false;
                    } else {
                        key = serde_json::from_slice::<String>(raw).ok();
                    }
                }
            }
            b'{' | b'[' => {
                depth += 1;
                if depth == 2 {
                    key = None;
                    expecting_value = false;
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            b':' if depth == 1 => expecting_value = key.is_some(),
            b',' if depth == 1 => {
                key = None;
                expecting_value = false;
            }
            b if depth == 1 && expecting_value && !b.is_ascii_whitespace() => {
                let start = i;
                while i < text.len()
                    && !matches!(text[i], b',' | b'}' | b' ' | b'\n' | b'\r' | b'\t')
                {
                    i += 1;
                }
                if i >= text.len() {
                    break;
                }
                if let Some(k) = key.take() {
                    out.push((k, String::from_utf8_lossy(&text[start..i]).into_owned()));
                }
                expecting_value = false;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    async fn read_all(input: &[u8], max: usize) -> String {
        let mut reader = LineLimit::new(input, max, "the test");
        let mut out = String::new();
        reader.read_to_string(&mut out).await.unwrap();
        out
    }

    #[tokio::test]
    async fn lines_under_the_bound_pass_unchanged() {
        let input = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n{\"a\":1}\nlast";
        assert_eq!(read_all(input.as_bytes(), 100).await, input);
    }

    #[tokio::test]
    async fn an_oversized_request_becomes_the_refusal_request_with_its_id() {
        let big = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":\"r-7\",\"method\":\"tools/call\",\"params\":{{\"x\":\"{}\"}}}}\n{{\"next\":1}}\n",
            "a".repeat(10_000)
        );
        let out = read_all(big.as_bytes(), 200).await;
        let lines: Vec<serde_json::Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(
            lines,
            vec![
                json!({"jsonrpc": "2.0", "id": "r-7", "method": OVERSIZED, "params": {"limit": 200}}),
                json!({"next": 1})
            ]
        );
    }

    #[tokio::test]
    async fn an_oversized_response_becomes_an_error_with_its_id() {
        let big = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":42,\"result\":{{\"tools\":[\"{}\"]}}}}\n",
            "t".repeat(5_000)
        );
        let out = read_all(big.as_bytes(), 100).await;
        let line: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
        assert_eq!(line["id"], json!(42));
        assert_eq!(line["error"]["code"], json!(-32600));
    }

    #[tokio::test]
    async fn an_id_inside_params_is_not_the_message_id() {
        let big = format!(
            "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\",\"params\":{{\"id\":9,\"x\":\"{}\"}}}}\n{{\"ok\":true}}\n",
            "b".repeat(1_000)
        );
        assert_eq!(read_all(big.as_bytes(), 100).await, "{\"ok\":true}\n");
    }

    #[test]
    fn top_level_members_of_a_cut_object() {
        let fields = top_level(br#"{"jsonrpc": "2.0", "params": {"id": 3, "s": "}"}, "id" : -12, "method":"a\"b", "cut": "xx"#);
        assert_eq!(
            fields,
            vec![
                ("jsonrpc".to_owned(), "\"2.0\"".to_owned()),
                ("id".to_owned(), "-12".to_owned()),
                ("method".to_owned(), "\"a\\\"b\"".to_owned()),
            ]
        );
    }
}
