//! Progress that arrived before an answer goes out before it.
//!
//! rmcp reads the server's messages in order but hands each notification to a task of its own,
//! while an answer goes straight to the request waiting for it. A progress notification the
//! server wrote just before its answer may therefore still be on its way through the proxy when
//! the answer is, and reach the client after it (the MCP conformance suite's
//! `tools-call-with-progress` caught this). The transport below counts each progress
//! notification as it is read, in the server's order; the handler counts each one it has passed
//! on (or dropped). A request's answer waits until every progress read before it was handled.

use std::borrow::Cow;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::model::{JsonRpcMessage, ServerNotification};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;

/// Progress notifications read from one side, and those handled so far.
#[derive(Debug, Default)]
pub struct Arrivals {
    read: AtomicUsize,
    handled: AtomicUsize,
}

impl Arrivals {
    /// Marks one progress notification as handled when the returned guard is dropped (whether
    /// it was passed on or dropped as nobody's).
    pub fn handling(&self) -> Handling<'_> {
        Handling(self)
    }

    /// Waits until every progress notification read so far was handled, at most `limit` (a
    /// client that stopped reading must not hold an answer for long).
    pub async fn settled(&self, limit: Duration) {
        let read = self.read.load(Ordering::SeqCst);
        let start = tokio::time::Instant::now();
        while self.handled.load(Ordering::SeqCst) < read && start.elapsed() < limit {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    }
}

/// See [`Arrivals::handling`].
pub struct Handling<'a>(&'a Arrivals);

impl Drop for Handling<'_> {
    fn drop(&mut self) {
        self.0.handled.fetch_add(1, Ordering::SeqCst);
    }
}

/// A client transport that counts the progress notifications it reads into [`Arrivals`].
pub struct Counted<T> {
    inner: T,
    arrivals: Arc<Arrivals>,
}

impl<T> Counted<T> {
    pub fn new(inner: T, arrivals: Arc<Arrivals>) -> Counted<T> {
        Counted { inner, arrivals }
    }
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for Counted<T> {
    type Error = T::Error;

    fn name() -> Cow<'static, str> {
        T::name()
    }

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        let message = self.inner.receive().await;
        if let Some(JsonRpcMessage::Notification(n)) = &message
            && matches!(n.notification, ServerNotification::ProgressNotification(_))
        {
            self.arrivals.read.fetch_add(1, Ordering::SeqCst);
        }
        message
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_answer_waits_for_progress_read_before_it() {
        let arrivals = Arc::new(Arrivals::default());
        arrivals.read.fetch_add(2, Ordering::SeqCst);
        let later = arrivals.clone();
        let handler = tokio::spawn(async move {
            for _ in 0..2 {
                tokio::time::sleep(Duration::from_millis(20)).await;
                drop(later.handling());
            }
        });
        let start = std::time::Instant::now();
        arrivals.settled(Duration::from_secs(5)).await;
        assert_eq!(arrivals.handled.load(Ordering::SeqCst), 2);
        assert!(start.elapsed() >= Duration::from_millis(40));
        handler.await.unwrap();
    }

    #[tokio::test]
    async fn a_handler_that_never_finishes_holds_the_answer_only_up_to_the_limit() {
        let arrivals = Arrivals::default();
        arrivals.read.fetch_add(1, Ordering::SeqCst);
        let start = std::time::Instant::now();
        arrivals.settled(Duration::from_millis(30)).await;
        assert!(start.elapsed() < Duration::from_secs(2));
    }
}
