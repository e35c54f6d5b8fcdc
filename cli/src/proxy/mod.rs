//! `toolschema proxy`: an MCP server in front of another one, publishing each tool's schema as
//! one provider accepts it and checking every call against the server's own schema.
//!
//! Two rmcp services, one per side, forward what they do not change:
//! - [`Downstream`] serves the client. Its `initialize` starts the upstream connection with the
//!   client's own parameters (its capabilities, so the server may ask it for sampling, roots or
//!   elicitation through the proxy) and answers with the server's result. `tools/list` answers
//!   with [`tools::Published`]; `tools/call` is restored and validated first; every other request
//!   is sent upstream as it came.
//! - [`Upstream`] is the server's client: requests the server makes go to the client,
//!   notifications too (a `tools/list_changed` after the tools were listed again).
//!
//! Each side has its own request ids (rmcp numbers what the proxy sends); a cancellation is
//! passed on as the other side's id, and a progress token as the one the requester chose.

pub mod tools;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use rmcp::model::GetMeta;
use rmcp::model::{
    CancelledNotification, CancelledNotificationParam, ClientNotification, ClientRequest,
    ErrorCode, ErrorData, InitializeRequestParams, InitializeResult, ListToolsResult,
    ProgressToken, ServerNotification, ServerRequest, ServerResult,
};
use rmcp::service::{
    NotificationContext, Peer, PeerRequestOptions, RequestContext, RunningService, ServiceError,
};
use rmcp::{RoleClient, RoleServer, Service, ServiceExt};
use toolschema::adapt::AdaptSettings;

use crate::server::{Server, connect};
use tools::{Call, Published};

/// What the proxy was asked to do.
pub struct Options {
    /// The provider the tools are published for.
    pub settings: AdaptSettings,
    /// The server behind the proxy.
    pub server: Server,
    /// Added to the server command's environment.
    pub env: Vec<(String, String)>,
    /// Where the per-tool report goes (written at each listing).
    pub report: Option<PathBuf>,
    /// How long the server may take to start, and to answer a request without progress.
    pub timeout: Duration,
}

/// One client's session: its upstream connection, what was published, and the progress tokens
/// in flight in each direction.
struct Session {
    options: Arc<Options>,
    upstream: tokio::sync::OnceCell<Peer<RoleClient>>,
    upstream_info: RwLock<Option<InitializeResult>>,
    published: RwLock<Option<Arc<Published>>>,
    /// Token the proxy sent upstream → the client's token.
    progress_down: Mutex<HashMap<ProgressToken, ProgressToken>>,
    /// Token the proxy sent to the client → the server's token.
    progress_up: Mutex<HashMap<ProgressToken, ProgressToken>>,
    /// Set when the client side ended: the upstream is closing on purpose.
    closing: AtomicBool,
    /// Told when the upstream connection ends while the client is still there.
    gone: tokio::sync::Notify,
    upstream_ct: Mutex<Option<rmcp::service::RunningServiceCancellationToken>>,
}

impl Session {
    fn new(options: Arc<Options>) -> Arc<Session> {
        Arc::new(Session {
            options,
            upstream: tokio::sync::OnceCell::new(),
            upstream_info: RwLock::new(None),
            published: RwLock::new(None),
            progress_down: Mutex::new(HashMap::new()),
            progress_up: Mutex::new(HashMap::new()),
            closing: AtomicBool::new(false),
            gone: tokio::sync::Notify::new(),
            upstream_ct: Mutex::new(None),
        })
    }

    fn request_options(&self) -> PeerRequestOptions {
        let mut options = PeerRequestOptions::with_timeout(self.options.timeout);
        options.reset_timeout_on_progress = true;
        options
    }

    /// Starts the upstream connection as a client that says what `client` said.
    async fn start_upstream(
        self: &Arc<Self>,
        client: InitializeRequestParams,
        downstream: Option<Peer<RoleServer>>,
    ) -> Result<(), String> {
        let handler = Upstream {
            session: self.clone(),
            downstream,
            client,
        };
        let running = tokio::time::timeout(
            self.options.timeout,
            connect(&self.options.server, handler, None, &self.options.env),
        )
        .await
        .map_err(|_| {
            format!(
                "{}: no answer within {} s (raise it with --timeout SECS)",
                self.options.server.name(),
                self.options.timeout.as_secs()
            )
        })?
        .map_err(|e| format!("{}: {e}", self.options.server.name()))?;
        let peer = running.peer().clone();
        let info = running
            .peer_info()
            .and_then(|i| serde_json::to_value(&*i).ok())
            .map(|mut v| {
                if v.get("serverInfo").is_none() {
                    v["serverInfo"] = serde_json::json!({"name": "upstream", "version": "0"});
                }
                v
            })
            .and_then(|v| serde_json::from_value::<InitializeResult>(v).ok());
        *self
            .upstream_info
            .write()
            .unwrap_or_else(|e| e.into_inner()) = info;
        *self.upstream_ct.lock().unwrap_or_else(|e| e.into_inner()) =
            Some(running.cancellation_token());
        let _ = self.upstream.set(peer);
        let session = self.clone();
        tokio::spawn(async move {
            let _ = running.waiting().await;
            if !session.closing.load(Ordering::SeqCst) {
                eprintln!(
                    "toolschema proxy: {} closed the connection",
                    session.options.server.name()
                );
                session.gone.notify_waiters();
                session.gone.notify_one();
            }
        });
        self.relist().await
    }

    /// Lists every upstream tool, publishes them adapted, writes the report and the summary.
    async fn relist(&self) -> Result<(), String> {
        let peer = self.upstream.get().ok_or("the server is not connected")?;
        let tools = tokio::time::timeout(self.options.timeout, peer.list_all_tools())
            .await
            .map_err(|_| "`tools/list` got no answer in time".to_owned())?
            .map_err(|e| format!("`tools/list` failed: {e}"))?;
        let published = Arc::new(Published::new(tools, &self.options.settings));
        eprintln!(
            "toolschema proxy ({}): {}",
            self.options.settings.target,
            published.summary()
        );
        if let Some(path) = &self.options.report {
            let text = serde_json::to_string_pretty(&published.report).unwrap_or_default();
            std::fs::write(path, text + "\n")
                .map_err(|e| format!("cannot write the report {}: {e}", path.display()))?;
        }
        *self.published.write().unwrap_or_else(|e| e.into_inner()) = Some(published);
        Ok(())
    }

    fn published(&self) -> Option<Arc<Published>> {
        self.published
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Ends the upstream connection on purpose (the client went away).
    fn close(&self) {
        self.closing.store(true, Ordering::SeqCst);
        if let Some(ct) = self
            .upstream_ct
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
        {
            ct.cancel();
        }
    }
}

/// An upstream failure, as the JSON-RPC error the client gets.
fn upstream_error(session: &Session, error: ServiceError) -> ErrorData {
    match error {
        // The server's own error passes through unchanged.
        ServiceError::McpError(e) => e,
        ServiceError::Timeout { timeout } => ErrorData::new(
            ErrorCode::INTERNAL_ERROR,
            format!(
                "{} did not answer within {} s",
                session.options.server.name(),
                timeout.as_secs()
            ),
            None,
        ),
        ServiceError::TransportClosed | ServiceError::TransportSend(_) => ErrorData::new(
            ErrorCode::INTERNAL_ERROR,
            format!(
                "{} is gone (it closed the connection)",
                session.options.server.name()
            ),
            None,
        ),
        other => ErrorData::new(ErrorCode::INTERNAL_ERROR, other.to_string(), None),
    }
}

/// The client side: an MCP server whose answers come from upstream.
pub struct Downstream {
    session: Arc<Session>,
}

impl Drop for Downstream {
    fn drop(&mut self) {
        self.session.close();
    }
}

impl Downstream {
    async fn forward(
        &self,
        mut request: ClientRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<ServerResult, ErrorData> {
        let session = &self.session;
        let Some(peer) = session.upstream.get() else {
            return Err(ErrorData::new(
                ErrorCode::INVALID_REQUEST,
                "the proxy has no server connection yet: send `initialize` first",
                None,
            ));
        };
        // What the client put in `_meta` goes on; the progress token is the proxy's own
        // upstream (rmcp sets it) and is mapped back to the client's.
        let client_token = context.meta.get_progress_token();
        *request.get_meta_mut() = context.meta.clone();
        let handle = peer
            .send_cancellable_request(request, session.request_options())
            .await
            .map_err(|e| upstream_error(session, e))?;
        let token = handle.progress_token.clone();
        if let Some(client_token) = client_token {
            session
                .progress_down
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(token.clone(), client_token);
        }
        let id = handle.id.clone();
        let peer = handle.peer.clone();
        let result = tokio::select! {
            result = handle.await_response() => result.map_err(|e| upstream_error(session, e)),
            () = context.ct.cancelled() => {
                cancel(&peer, id, "cancelled by the client").await;
                Err(ErrorData::new(ErrorCode::INTERNAL_ERROR, "cancelled", None))
            }
        };
        session
            .progress_down
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&token);
        result
    }
}

impl Service<RoleServer> for Downstream {
    async fn handle_request(
        &self,
        request: ClientRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<ServerResult, ErrorData> {
        let session = &self.session;
        match request {
            ClientRequest::InitializeRequest(initialize) => {
                if session.upstream.get().is_some() {
                    return Err(ErrorData::new(
                        ErrorCode::INVALID_REQUEST,
                        "already initialized",
                        None,
                    ));
                }
                session
                    .start_upstream(initialize.params, Some(context.peer.clone()))
                    .await
                    .map_err(|e| {
                        eprintln!("toolschema proxy: {e}");
                        ErrorData::new(ErrorCode::INTERNAL_ERROR, e, None)
                    })?;
                let info = session
                    .upstream_info
                    .read()
                    .unwrap_or_else(|e| e.into_inner())
                    .clone()
                    .ok_or_else(|| {
                        ErrorData::new(
                            ErrorCode::INTERNAL_ERROR,
                            "the server's initialize result is unreadable",
                            None,
                        )
                    })?;
                Ok(ServerResult::InitializeResult(info))
            }
            ClientRequest::ListToolsRequest(list) => {
                if list.params.as_ref().is_some_and(|p| p.cursor.is_some()) {
                    return Err(ErrorData::invalid_params(
                        "unknown cursor: the proxy lists every tool in one page",
                        None,
                    ));
                }
                let published = match session.published() {
                    Some(p) => p,
                    None => {
                        session
                            .relist()
                            .await
                            .map_err(|e| ErrorData::new(ErrorCode::INTERNAL_ERROR, e, None))?;
                        session.published().ok_or_else(|| {
                            ErrorData::new(ErrorCode::INTERNAL_ERROR, "no tools listed", None)
                        })?
                    }
                };
                // Built from JSON so that only what a `tools/list` result has is sent (rmcp's
                // constructors add the 2026 protocol's `resultType`).
                let result: ListToolsResult =
                    serde_json::from_value(serde_json::json!({ "tools": published.tools }))
                        .map_err(|e| {
                            ErrorData::new(ErrorCode::INTERNAL_ERROR, e.to_string(), None)
                        })?;
                Ok(ServerResult::ListToolsResult(result))
            }
            ClientRequest::CallToolRequest(mut call) => {
                let Some(published) = session.published() else {
                    return self
                        .forward(ClientRequest::CallToolRequest(call), context)
                        .await;
                };
                match published.call(&call.params.name, call.params.arguments.take()) {
                    Call::Forward(name, arguments) => {
                        call.params.name = name.into();
                        call.params.arguments = arguments;
                    }
                    Call::Refuse(result) => return Ok(ServerResult::CallToolResult(result)),
                    Call::Unknown => {}
                }
                self.forward(ClientRequest::CallToolRequest(call), context)
                    .await
            }
            other => self.forward(other, context).await,
        }
    }

    async fn handle_notification(
        &self,
        notification: ClientNotification,
        _context: NotificationContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let Some(peer) = self.session.upstream.get() else {
            return Ok(());
        };
        let notification = match notification {
            // rmcp cancels the request's context; `forward` passes it on with the upstream id.
            ClientNotification::CancelledNotification(_) => return Ok(()),
            // The upstream connection was initialized by the proxy's client already.
            ClientNotification::InitializedNotification(_) => return Ok(()),
            ClientNotification::ProgressNotification(mut progress) => {
                let map = self
                    .session
                    .progress_up
                    .lock()
                    .unwrap_or_else(|e| e.into_inner());
                let Some(token) = map.get(&progress.params.progress_token) else {
                    return Ok(());
                };
                progress.params.progress_token = token.clone();
                ClientNotification::ProgressNotification(progress)
            }
            other => other,
        };
        let _ = peer.send_notification(notification).await;
        Ok(())
    }

    fn get_info(&self) -> InitializeResult {
        self.session
            .upstream_info
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
            .unwrap_or_default()
    }
}

/// The server side: the proxy as the server's client, passing the server's requests and
/// notifications to the client.
struct Upstream {
    session: Arc<Session>,
    /// `None` for the start-up check (no client yet).
    downstream: Option<Peer<RoleServer>>,
    client: InitializeRequestParams,
}

impl Service<RoleClient> for Upstream {
    async fn handle_request(
        &self,
        mut request: ServerRequest,
        context: RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ClientResult, ErrorData> {
        let session = &self.session;
        let Some(downstream) = &self.downstream else {
            return Err(ErrorData::new(
                ErrorCode::INTERNAL_ERROR,
                "no client is connected to the proxy yet",
                None,
            ));
        };
        let server_token = context.meta.get_progress_token();
        *request.get_meta_mut() = context.meta.clone();
        let handle = downstream
            .send_cancellable_request(request, session.request_options())
            .await
            .map_err(|e| match e {
                ServiceError::McpError(e) => e,
                other => ErrorData::new(ErrorCode::INTERNAL_ERROR, other.to_string(), None),
            })?;
        let token = handle.progress_token.clone();
        if let Some(server_token) = server_token {
            session
                .progress_up
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(token.clone(), server_token);
        }
        let id = handle.id.clone();
        let peer = handle.peer.clone();
        let result = tokio::select! {
            result = handle.await_response() => result.map_err(|e| match e {
                ServiceError::McpError(e) => e,
                other => ErrorData::new(ErrorCode::INTERNAL_ERROR, format!("the client did not answer: {other}"), None),
            }),
            () = context.ct.cancelled() => {
                cancel(&peer, id, "cancelled by the server").await;
                Err(ErrorData::new(ErrorCode::INTERNAL_ERROR, "cancelled", None))
            }
        };
        session
            .progress_up
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&token);
        result
    }

    async fn handle_notification(
        &self,
        notification: ServerNotification,
        _context: NotificationContext<RoleClient>,
    ) -> Result<(), ErrorData> {
        let notification = match notification {
            ServerNotification::CancelledNotification(_) => return Ok(()),
            ServerNotification::ProgressNotification(mut progress) => {
                let map = self
                    .session
                    .progress_down
                    .lock()
                    .unwrap_or_else(|e| e.into_inner());
                let Some(token) = map.get(&progress.params.progress_token) else {
                    return Ok(());
                };
                progress.params.progress_token = token.clone();
                ServerNotification::ProgressNotification(progress)
            }
            ServerNotification::ToolListChangedNotification(changed) => {
                // Listed again before the client hears of it, so its next `tools/list` gets
                // the new tools (on a task: the listing needs this connection's loop).
                let session = self.session.clone();
                let downstream = self.downstream.clone();
                tokio::spawn(async move {
                    if let Err(e) = session.relist().await {
                        eprintln!("toolschema proxy: re-listing after tools/list_changed: {e}");
                    }
                    if let Some(downstream) = downstream {
                        let _ = downstream
                            .send_notification(ServerNotification::ToolListChangedNotification(
                                changed,
                            ))
                            .await;
                    }
                });
                return Ok(());
            }
            other => other,
        };
        if let Some(downstream) = &self.downstream {
            let _ = downstream.send_notification(notification).await;
        }
        Ok(())
    }

    fn get_info(&self) -> InitializeRequestParams {
        self.client.clone()
    }
}

/// Runs the proxy until the client leaves (exit 0) or the server goes (exit 1); 2 when the
/// server cannot be started or initialized.
pub fn run(options: Options) -> u8 {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("toolschema proxy: cannot start the async runtime: {e}");
            return 2;
        }
    };
    let options = Arc::new(options);
    let code = runtime.block_on(serve_stdio(options));
    runtime.shutdown_timeout(Duration::from_secs(2));
    code
}

async fn serve_stdio(options: Arc<Options>) -> u8 {
    let session = Session::new(options);
    let downstream = Downstream {
        session: session.clone(),
    };
    let running: RunningService<RoleServer, Downstream> =
        match downstream.serve(rmcp::transport::stdio()).await {
            Ok(r) => r,
            Err(e) => {
                eprintln!("toolschema proxy: the session did not start: {e}");
                return 2;
            }
        };
    let ct = running.cancellation_token();
    tokio::select! {
        _ = running.waiting() => {
            session.close();
            0
        }
        () = session.gone.notified() => {
            // Requests in flight were answered with errors by now; let them reach the client.
            tokio::time::sleep(Duration::from_millis(200)).await;
            ct.cancel();
            1
        }
    }
}

/// Reads `K=V` for `--env`.
pub fn parse_env(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((k, v)) if !k.is_empty() => Ok((k.to_owned(), v.to_owned())),
        _ => Err(format!("`{text}` is not `NAME=value`")),
    }
}

/// Tells `peer` that the request it knows as `id` is cancelled.
async fn cancel<R: rmcp::service::ServiceRole>(
    peer: &Peer<R>,
    id: rmcp::model::RequestId,
    reason: &str,
) where
    R::Not: From<CancelledNotification>,
{
    let param = CancelledNotificationParam::new(Some(id), Some(reason.to_owned()));
    let _ = peer
        .send_notification(CancelledNotification::new(param).into())
        .await;
}
