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

pub mod arrivals;
pub mod limit;
pub mod relay;
pub mod tools;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use rmcp::model::GetMeta;
// Logging and roots are deprecated by SEP-2577 and still used by deployed clients: passed on.
#[allow(deprecated)]
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, CancelledNotification,
    CancelledNotificationParam, ClientNotification, ClientRequest, CompleteRequestParams,
    CompleteResult, CustomNotification, CustomRequest, CustomResult, ErrorCode, ErrorData,
    GetPromptRequestParams, GetPromptResponse, GetSkillRequestParams, GetSkillResult,
    GetTaskParams, GetTaskResult, InitializeRequestParams, InitializeResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListSkillsResult, ListToolsResult,
    Notification, NotificationNoParam, PaginatedRequestParams, ProgressNotificationParam,
    ProgressToken, ReadResourceDirectoryRequestParams, ReadResourceRequestParams,
    ReadResourceResponse, Request, RequestNoParam, RequestOptionalParam, ServerNotification,
    ServerRequest, ServerResult, SetLevelRequestParams, SubscribeRequestParams,
    UnsubscribeRequestParams, UpdateTaskParams,
};
use rmcp::service::{
    NotificationContext, Peer, PeerRequestOptions, RequestContext, RunningService, ServiceError,
};
use rmcp::{RoleClient, RoleServer, ServerHandler, Service, ServiceExt};
use tokio_util::sync::CancellationToken;
use toolschema::adapt::AdaptSettings;

use crate::server::{Server, TasksSeen, connect_bounded};
use arrivals::Arrivals;
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
    /// The largest message read from either side, in bytes.
    pub max_message: usize,
    /// The tools published (`--tools`, `--exclude`); the others are refused as unknown.
    pub choose: crate::choose::Chooser,
}

/// One client's session: its upstream connection, what was published, and the progress tokens
/// in flight in each direction.
struct Session {
    options: Arc<Options>,
    upstream: tokio::sync::OnceCell<Peer<RoleClient>>,
    upstream_info: RwLock<Option<InitializeResult>>,
    published: RwLock<Option<Arc<Published>>>,
    /// Token the proxy sent upstream → the client's token.
    progress_down: Arc<Tokens>,
    /// Token the proxy sent to the client → the server's token.
    progress_up: Arc<Tokens>,
    /// Set when the client side ended: the upstream is closing on purpose.
    closing: AtomicBool,
    /// Set when the server failed to start and that was said on stderr (one line, not two).
    start_reported: AtomicBool,
    /// Cancelled when the upstream connection ends while the client is still there.
    gone: CancellationToken,
    upstream_ct: Mutex<Option<rmcp::service::RunningServiceCancellationToken>>,
    /// The server process (`--server`), killed when dropped.
    child: Mutex<Option<tokio::process::Child>>,
    /// What the server's output said of MCP tasks in the form rmcp drops.
    tasks: Arc<Mutex<TasksSeen>>,
}

impl Session {
    fn new(options: Arc<Options>) -> Arc<Session> {
        Arc::new(Session {
            options,
            upstream: tokio::sync::OnceCell::new(),
            upstream_info: RwLock::new(None),
            published: RwLock::new(None),
            progress_down: Arc::default(),
            progress_up: Arc::default(),
            closing: AtomicBool::new(false),
            start_reported: AtomicBool::new(false),
            gone: CancellationToken::new(),
            upstream_ct: Mutex::new(None),
            child: Mutex::new(None),
            tasks: Arc::default(),
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
        let (running, child) = tokio::time::timeout(
            self.options.timeout,
            connect_bounded(
                &self.options.server,
                handler,
                &self.options.env,
                self.options.max_message,
                self.tasks.clone(),
                self.progress_down.arrivals.clone(),
            ),
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
        *self.child.lock().unwrap_or_else(|e| e.into_inner()) = child;
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
                session.gone.cancel();
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
        let published = Arc::new(Published::new(
            tools,
            &self.options.settings,
            &self.options.choose,
        )?);
        published.exit_over_limit(self.options.settings.target);
        let tasks = self
            .tasks
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clause();
        published.announce(
            self.options.settings.target,
            &tasks,
            self.options.report.as_deref(),
        )?;
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
        // Killed if it did not leave when its input closed (rmcp closes it on cancel).
        let child = self.child.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(mut child) = child {
            if let Ok(handle) = tokio::runtime::Handle::try_current() {
                handle.spawn(async move {
                    if tokio::time::timeout(Duration::from_secs(2), child.wait())
                        .await
                        .is_err()
                    {
                        let _ = child.kill().await;
                    }
                });
            }
        }
    }
}

/// Progress tokens of requests the proxy passed on: the token rmcp gave the request it sent →
/// the token the original requester chose. The lock is held from before a request is sent
/// until its token is recorded, so a progress notification cannot be looked up in between.
#[derive(Default)]
struct Tokens {
    map: tokio::sync::Mutex<HashMap<ProgressToken, ProgressToken>>,
    /// Progress notifications read from the side requests go to, and those passed on: an
    /// answer goes back only after the progress read before it (see [`arrivals`]).
    arrivals: Arc<Arrivals>,
}

impl Tokens {
    /// Sends `request` to `peer`, recording its token for `requester`'s (if it asked).
    async fn send<R: rmcp::service::ServiceRole>(
        &self,
        peer: &Peer<R>,
        request: R::Req,
        options: PeerRequestOptions,
        requester: Option<ProgressToken>,
    ) -> Result<rmcp::service::RequestHandle<R>, ServiceError> {
        let mut map = self.map.lock().await;
        let handle = peer.send_cancellable_request(request, options).await?;
        if let Some(requester) = requester {
            map.insert(handle.progress_token.clone(), requester);
        }
        Ok(handle)
    }

    /// Passes a request on to `peer` and waits for its answer: `meta` is the requester's
    /// `_meta` (its progress token recorded against the one rmcp gives the new request), a
    /// cancellation of the requester's request (`ct`) is sent on under the new id, and `gone`
    /// (the other side closed) ends the wait at once. `error` words what went wrong.
    #[allow(clippy::too_many_arguments)]
    async fn relay<R: rmcp::service::ServiceRole>(
        self: &Arc<Self>,
        peer: &Peer<R>,
        mut request: R::Req,
        meta: &rmcp::model::RequestMetaObject,
        options: PeerRequestOptions,
        ct: &CancellationToken,
        gone: Option<&CancellationToken>,
        error: impl Fn(ServiceError) -> ErrorData,
    ) -> Result<R::PeerResp, ErrorData>
    where
        R::Not: From<CancelledNotification>,
    {
        let requester = meta.get_progress_token();
        // rmcp puts a progress token of its own on every request it sends, so a server may
        // report progress nobody asked for: only progress the requester asked for (and will be
        // passed on) keeps the request alive past the timeout.
        let mut options = options;
        options.reset_timeout_on_progress &= requester.is_some();
        *request.get_meta_mut() = meta.clone();
        let handle = self
            .send(peer, request, options, requester)
            .await
            .map_err(&error)?;
        let token = handle.progress_token.clone();
        let id = handle.id.clone();
        let peer = handle.peer.clone();
        let never = CancellationToken::new();
        let gone = gone.unwrap_or(&never);
        let result = tokio::select! {
            biased;
            result = handle.await_response() => result.map_err(&error),
            () = gone.cancelled() => Err(error(ServiceError::TransportClosed)),
            () = ct.cancelled() => {
                cancel(&peer, id, "cancelled by the requester").await;
                Err(ErrorData::new(ErrorCode::INTERNAL_ERROR, "cancelled", None))
            }
        };
        self.forget_later(token);
        // Progress sent before the answer goes before it (a client stops listening for a
        // request's progress once it has the answer).
        self.arrivals.settled(Duration::from_secs(2)).await;
        result
    }

    /// The requester's token for a progress notification, if its request is known.
    async fn requester(&self, sent: &ProgressToken) -> Option<ProgressToken> {
        self.map.lock().await.get(sent).cloned()
    }

    /// Forgets a finished request's token a little later: a progress notification sent just
    /// before the response may still be on its way through another task.
    fn forget_later(self: &Arc<Self>, sent: ProgressToken) {
        let tokens = self.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_secs(2)).await;
            tokens.map.lock().await.remove(&sent);
        });
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
        request: ClientRequest,
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
        // What the client put in `_meta` goes on; progress comes back under its own token.
        session
            .progress_down
            .relay(
                peer,
                request,
                &context.meta,
                session.request_options(),
                &context.ct,
                Some(&session.gone),
                |e| upstream_error(session, e),
            )
            .await
    }
}

impl Downstream {
    /// Answers one client request: `initialize`, `tools/list` and `tools/call` here, the rest
    /// upstream.
    async fn dispatch(
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
                        // The one line: the session's own end says nothing more.
                        eprintln!("toolschema proxy: {e}");
                        session.start_reported.store(true, Ordering::SeqCst);
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
            ClientRequest::CustomRequest(request) if request.method == limit::OVERSIZED => {
                Err(oversized(session))
            }
            // A `tools/call` rmcp could not read as one (its `arguments` are not an object, say):
            // an invalid call, refused as every other one is, never forwarded.
            ClientRequest::CustomRequest(request) if request.method == "tools/call" => {
                // Answered through `on_custom_request`, which passes a custom result on as is.
                let params = request.params.unwrap_or_default();
                let refusal = serde_json::to_value(tools::unreadable_call(&params))
                    .map_err(|e| ErrorData::new(ErrorCode::INTERNAL_ERROR, e.to_string(), None))?;
                Ok(ServerResult::CustomResult(CustomResult(refusal)))
            }
            other => self.forward(other, context).await,
        }
    }

    /// Passes a client notification upstream (progress under the server's token).
    async fn notify(&self, notification: ClientNotification) {
        let Some(peer) = self.session.upstream.get() else {
            return;
        };
        let notification = match notification {
            ClientNotification::ProgressNotification(mut progress) => {
                let Some(token) = self
                    .session
                    .progress_up
                    .requester(&progress.params.progress_token)
                    .await
                else {
                    return;
                };
                progress.params.progress_token = token;
                ClientNotification::ProgressNotification(progress)
            }
            other => other,
        };
        let _ = peer.send_notification(notification).await;
    }
}

/// The answer to a request over `--max-message` (its stand-in, [`limit::OVERSIZED`]).
fn oversized(session: &Session) -> ErrorData {
    ErrorData::invalid_request(
        format!(
            "the request is over the proxy's --max-message limit of {} bytes and was not read",
            session.options.max_message
        ),
        None,
    )
}

/// A result of another kind than the request asks for (a server that broke the protocol).
fn unexpected(result: &ServerResult) -> ErrorData {
    ErrorData::new(
        ErrorCode::INTERNAL_ERROR,
        format!(
            "the server answered with an unexpected result: {}",
            serde_json::to_string(result).unwrap_or_default()
        ),
        None,
    )
}

/// Sends `$request` through [`Downstream::dispatch`] and takes the result variants named.
macro_rules! through {
    ($self:ident, $context:ident, $request:expr, $($variant:ident => $convert:expr),+ $(,)?) => {
        match $self.dispatch($request, $context).await? {
            $(ServerResult::$variant(r) => Ok($convert(r)),)+
            other => Err(unexpected(&other)),
        }
    };
}

/// rmcp's server side (its lifecycle, version negotiation and result shapes per protocol
/// version) with every request answered through [`Downstream::dispatch`]. Not passed on:
/// `subscriptions/listen` of the 2026-07-28 protocol (rmcp's default answers it; legacy
/// `resources/subscribe` is passed on) and `discover` (answered from the server's
/// `initialize` result).
impl ServerHandler for Downstream {
    fn get_info(&self) -> InitializeResult {
        self.session
            .upstream_info
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
            .unwrap_or_default()
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        through!(self, context, ClientRequest::InitializeRequest(Request::new(request)),
            InitializeResult => |r| r)
    }

    async fn ping(&self, context: RequestContext<RoleServer>) -> Result<(), ErrorData> {
        let ping = RequestNoParam {
            method: Default::default(),
            extensions: Default::default(),
        };
        through!(self, context, ClientRequest::PingRequest(ping), EmptyResult => |_| ())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        through!(self, context, ClientRequest::CompleteRequest(Request::new(request)),
            CompleteResult => |r| r)
    }

    #[allow(deprecated)]
    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        through!(self, context, ClientRequest::SetLevelRequest(Request::new(request)),
            EmptyResult => |_| ())
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        through!(self, context, ClientRequest::GetPromptRequest(Request::new(request)),
            GetPromptResult => GetPromptResponse::Complete,
            InputRequiredResult => GetPromptResponse::InputRequired)
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        through!(self, context, ClientRequest::ListPromptsRequest(optional(request)),
            ListPromptsResult => |r| r)
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        through!(self, context, ClientRequest::ListResourcesRequest(optional(request)),
            ListResourcesResult => |r| r)
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        through!(self, context, ClientRequest::ListResourceTemplatesRequest(optional(request)),
            ListResourceTemplatesResult => |r| r)
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        through!(self, context, ClientRequest::ReadResourceRequest(Request::new(request)),
            ReadResourceResult => ReadResourceResponse::Complete,
            InputRequiredResult => ReadResourceResponse::InputRequired)
    }

    #[allow(deprecated)]
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        through!(self, context, ClientRequest::SubscribeRequest(Request::new(request)),
            EmptyResult => |_| ())
    }

    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        through!(self, context, ClientRequest::UnsubscribeRequest(Request::new(request)),
            EmptyResult => |_| ())
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        through!(self, context, ClientRequest::CallToolRequest(Request::new(request)),
            CallToolResult => CallToolResponse::Complete,
            InputRequiredResult => CallToolResponse::from,
            // A task the server made for the call (the tasks extension, SEP-2663): the client
            // follows it with `tasks/get`, passed on as well.
            CreateTaskResult => CallToolResponse::Task)
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        through!(self, context, ClientRequest::ListToolsRequest(optional(request)),
            ListToolsResult => |r| r)
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        through!(self, context, ClientRequest::GetTaskRequest(Request::new(request)),
            GetTaskResult => |r| r)
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        through!(self, context, ClientRequest::UpdateTaskRequest(Request::new(request)),
            TaskAckResult => |_| (), EmptyResult => |_| ())
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        through!(self, context, ClientRequest::CancelTaskRequest(Request::new(request)),
            TaskAckResult => |_| (), EmptyResult => |_| ())
    }

    async fn list_skills(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        through!(self, context, ClientRequest::ListSkillsRequest(optional(request)),
            ListSkillsResult => |r| r)
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, ErrorData> {
        through!(self, context, ClientRequest::GetSkillRequest(Request::new(request)),
            GetSkillResult => |r| r)
    }

    async fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        through!(self, context, ClientRequest::ReadResourceDirectoryRequest(Request::new(request)),
            ListResourcesResult => |r| r)
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        through!(self, context, ClientRequest::CustomRequest(request), CustomResult => |r| r)
    }

    async fn on_progress(
        &self,
        notification: ProgressNotificationParam,
        _context: NotificationContext<RoleServer>,
    ) {
        self.notify(ClientNotification::ProgressNotification(Notification::new(
            notification,
        )))
        .await;
    }

    async fn on_roots_list_changed(&self, _context: NotificationContext<RoleServer>) {
        let changed = NotificationNoParam {
            method: Default::default(),
            extensions: Default::default(),
        };
        self.notify(ClientNotification::RootsListChangedNotification(changed))
            .await;
    }

    async fn on_custom_notification(
        &self,
        notification: CustomNotification,
        _context: NotificationContext<RoleServer>,
    ) {
        self.notify(ClientNotification::CustomNotification(notification))
            .await;
    }
}

fn optional<M: Default>(
    params: Option<PaginatedRequestParams>,
) -> RequestOptionalParam<M, PaginatedRequestParams> {
    RequestOptionalParam {
        method: Default::default(),
        params,
        extensions: Default::default(),
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
        request: ServerRequest,
        context: RequestContext<RoleClient>,
    ) -> Result<rmcp::model::ClientResult, ErrorData> {
        let session = &self.session;
        if let ServerRequest::CustomRequest(custom) = &request
            && custom.method == limit::OVERSIZED
        {
            return Err(oversized(session));
        }
        let Some(downstream) = &self.downstream else {
            return Err(ErrorData::new(
                ErrorCode::INTERNAL_ERROR,
                "no client is connected to the proxy yet",
                None,
            ));
        };
        session
            .progress_up
            .relay(
                downstream,
                request,
                &context.meta,
                session.request_options(),
                &context.ct,
                None,
                |e| match e {
                    ServiceError::McpError(e) => e,
                    other => ErrorData::new(
                        ErrorCode::INTERNAL_ERROR,
                        format!("the client did not answer: {other}"),
                        None,
                    ),
                },
            )
            .await
    }

    async fn handle_notification(
        &self,
        notification: ServerNotification,
        _context: NotificationContext<RoleClient>,
    ) -> Result<(), ErrorData> {
        let notification = match notification {
            ServerNotification::CancelledNotification(_) => return Ok(()),
            ServerNotification::ProgressNotification(mut progress) => {
                let tokens = &self.session.progress_down;
                let _handling = tokens.arrivals.handling();
                let Some(token) = tokens.requester(&progress.params.progress_token).await else {
                    return Ok(());
                };
                progress.params.progress_token = token;
                if let Some(downstream) = &self.downstream {
                    let _ = downstream
                        .send_notification(ServerNotification::ProgressNotification(progress))
                        .await;
                }
                return Ok(());
            }
            ServerNotification::ToolListChangedNotification(changed) => {
                // Listed again before the client hears of it, so its next `tools/list` gets
                // the new tools (on a task: the listing needs this connection's loop).
                let session = self.session.clone();
                let downstream = self.downstream.clone();
                tokio::spawn(async move {
                    // A connection being closed (the start-up check, a session that ended) is
                    // not listed again.
                    if session.closing.load(Ordering::SeqCst) {
                        return;
                    }
                    // Nor one announced before the connection is stored (a server that says so
                    // while it starts, as the start-up check's does): the first listing follows.
                    if session.upstream.get().is_none() {
                        return;
                    }
                    if let Err(e) = session.relist().await
                        && !session.closing.load(Ordering::SeqCst)
                    {
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
pub fn run(options: Options, listen: Option<String>) -> u8 {
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
    let code = runtime.block_on(async move {
        match (listen, &options.server) {
            // Both sides on stdio: JSON-RPC relayed as written, nothing of it dropped.
            (None, Server::Command(argv)) => relay::run(options.clone(), argv).await,
            (None, Server::Url { .. }) => serve_stdio(options).await,
            (Some(addr), _) => serve_http(options, &addr).await,
        }
    });
    runtime.shutdown_timeout(Duration::from_secs(2));
    code
}

async fn serve_stdio(options: Arc<Options>) -> u8 {
    let session = Session::new(options);
    let downstream = Downstream {
        session: session.clone(),
    };
    let running: RunningService<RoleServer, Downstream> = match downstream
        .serve((
            limit::LineLimit::new(
                tokio::io::stdin(),
                session.options.max_message,
                "the client",
            ),
            tokio::io::stdout(),
        ))
        .await
    {
        Ok(r) => r,
        Err(e) => {
            if !session.start_reported.load(Ordering::SeqCst) {
                eprintln!("toolschema proxy: the session did not start: {e}");
            }
            return 2;
        }
    };
    let ct = running.cancellation_token();
    tokio::select! {
        _ = running.waiting() => {
            session.close();
            0
        }
        () = session.gone.cancelled() => {
            // Requests in flight were answered with errors by now; let them reach the client.
            tokio::time::sleep(Duration::from_millis(200)).await;
            ct.cancel();
            1
        }
    }
}

/// Serves Streamable HTTP at `http://ADDR/mcp` (ADDR only), one upstream connection (one server
/// process, for `--server`) per client session; a session whose server goes gets errors while
/// the others go on; exits 2 when the server cannot start at all.
async fn serve_http(options: Arc<Options>, addr: &str) -> u8 {
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
    };
    let listener = match tokio::net::TcpListener::bind(addr).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("toolschema proxy: cannot listen on {addr}: {e}");
            return 2;
        }
    };
    // The server is started once now, so that one that cannot start is an error here and not
    // at the first client (and the report is written at start); each client session then gets
    // its own connection, initialized with that client's parameters.
    let probe = Session::new(options.clone());
    if let Err(e) = probe
        .start_upstream(InitializeRequestParams::default(), None)
        .await
    {
        eprintln!("toolschema proxy: {e}");
        return 2;
    }
    probe.close();
    let factory_options = options.clone();
    let service = StreamableHttpService::new(
        move || {
            // A session's server that goes ends that session alone: its client's requests get
            // errors ("… is gone"), the other sessions and their servers go on.
            let session = Session::new(factory_options.clone());
            let watch = session.clone();
            tokio::spawn(async move {
                watch.gone.cancelled().await;
                eprintln!(
                    "toolschema proxy: a session's server is gone; that session gets errors, the others go on"
                );
            });
            Ok(Downstream { session })
        },
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    // A request body over the bound is refused (413) before it is read whole; then the HTTP
    // answers rmcp words otherwise are put right (`http_answers`).
    let router = axum::Router::new()
        .nest_service("/mcp", service)
        .layer(axum::middleware::from_fn(http_answers))
        .layer(tower_http::limit::RequestBodyLimitLayer::new(
            options.max_message,
        ));
    let bound = listener
        .local_addr()
        .map_or_else(|_| addr.to_owned(), |a| a.to_string());
    // The address on standard output (so `127.0.0.1:0` can be used), the rest on stderr.
    crate::say!("http://{bound}/mcp");
    eprintln!("toolschema proxy: serving MCP at http://{bound}/mcp");
    match axum::serve(listener, router).await {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("toolschema proxy: {e}");
            2
        }
    }
}

/// Two HTTP answers of the Streamable HTTP transport as clients expect them: a POST body that is
/// not JSON gets 400 with a JSON-RPC parse error (-32700), where rmcp answers 415 with plain
/// text; a session's DELETE gets 204, where rmcp answers 202 (the official Python client logs
/// "Session termination failed: 202").
async fn http_answers(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::http::{Method, StatusCode, header};
    use axum::response::IntoResponse;
    let request = if request.method() == Method::POST {
        let (parts, body) = request.into_parts();
        // The body limit layer outside bounds what is read here.
        let bytes = match axum::body::to_bytes(body, usize::MAX).await {
            Ok(bytes) => bytes,
            Err(_) => return StatusCode::PAYLOAD_TOO_LARGE.into_response(),
        };
        if let Err(e) = serde_json::from_slice::<serde::de::IgnoredAny>(&bytes) {
            let error = serde_json::json!({
                "jsonrpc": "2.0",
                "id": null,
                "error": {"code": -32700, "message": format!("Parse error: the body is not JSON ({e})")}
            });
            return (
                StatusCode::BAD_REQUEST,
                [(header::CONTENT_TYPE, "application/json")],
                error.to_string(),
            )
                .into_response();
        }
        axum::extract::Request::from_parts(parts, axum::body::Body::from(bytes))
    } else {
        request
    };
    let delete = request.method() == Method::DELETE;
    let mut response = next.run(request).await;
    if delete && response.status() == StatusCode::ACCEPTED {
        *response.status_mut() = StatusCode::NO_CONTENT;
    }
    response
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
