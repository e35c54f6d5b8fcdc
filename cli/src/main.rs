//! `toolschema`: lint, adapt, convert, snapshot and proxy tool catalogs from any language.
//!
//! Exit codes: 0 clean, 1 violations or stale allow-list entries, 2 unreadable input.

mod adapt;
mod choose;
mod input;
mod lint;
mod proxy;
mod server;
mod targets;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

#[derive(Parser)]
#[command(
    name = "toolschema",
    version,
    about = "Make LLM tool schemas safe for every provider"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check published tool schemas against the contract: no anyOf/oneOf with more than one
    /// object- or array-typed branch, an object root without top-level combinators.
    Lint(LintArgs),
    /// Adapt one JSON Schema for a provider; `--report` adds what the provider will not enforce.
    Adapt(AdaptArgs),
    /// Convert a tool catalog into a provider's tool declarations.
    Convert(ConvertArgs),
    /// Write, per tool and provider, the declaration that would be sent and its loss report
    /// (`DIR/<tool>/<target>.json`); `--check` compares instead (exit 1 on a difference).
    Snapshot(SnapshotArgs),
    /// Serve MCP in front of a server (`--server -- CMD` or `--url URL`), publishing each tool's
    /// schema as TARGET accepts it and checking every call against the server's own schema
    /// before it reaches the server.
    Proxy(ProxyArgs),
    /// List the targets: where each sends the schema, whether it attempts strict mode, and what
    /// it does (the README's table); `--json` for tools.
    Targets(TargetsArgs),
}

#[derive(clap::Args)]
struct TargetsArgs {
    /// One JSON object per target instead of the markdown table.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
struct ProxyArgs {
    /// The provider behind the client (`toolschema targets` lists them).
    #[arg(long = "for", value_name = "TARGET", value_parser = adapt::parse_target)]
    target: toolschema::Target,
    /// Serve Streamable HTTP at `http://ADDR/mcp` instead of stdio (binds ADDR only; the URL
    /// is printed on standard output).
    #[arg(long, value_name = "ADDR")]
    listen: Option<String>,
    /// Write, per tool, its loss report and any rename (at start and at each re-list).
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    /// Add `NAME=value` to the server command's environment (repeatable).
    #[arg(long = "env", value_name = "NAME=value", value_parser = proxy::parse_env)]
    env: Vec<(String, String)>,
    /// The largest message read from the client or the server, in bytes (default 16 MiB): a
    /// longer one is never held whole; a request gets a JSON-RPC error.
    #[arg(long, value_name = "BYTES", default_value_t = 16 << 20)]
    max_message: usize,
    /// OpenAI strict: spill `pattern`, `format`, number ranges and `minItems`/`maxItems` into
    /// descriptions instead of sending them (fine-tuned models lack these keywords).
    #[arg(long)]
    openai_conservative: bool,
    /// Send open maps and any-value places as the provider takes them, without encoding them
    /// (by default the proxy encodes them, as `--encode` does, and decodes every call itself).
    #[arg(long)]
    no_encode: bool,
    #[command(flatten)]
    choose: choose::Choose,
    #[command(flatten)]
    live: LiveArgs,
}

#[derive(clap::Args)]
struct SnapshotArgs {
    /// The snapshot directory.
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Compare with DIR instead of writing: exit 1 listing the files that differ, are missing
    /// or are extra.
    #[arg(long)]
    check: bool,
    /// Encode what the target cannot hold instead of losing it or sending the tool non-strict:
    /// open maps as `{key, value}` pairs, any-value places as JSON text (the model's arguments
    /// must then be decoded, as the library's `restore` and the proxy do).
    #[arg(long)]
    encode: bool,
    /// A tool catalog (as for `lint`): a path, or `-` (or nothing) for standard input.
    #[arg(value_name = "INPUT", conflicts_with_all = ["server", "url"])]
    input: Option<PathBuf>,
    #[command(flatten)]
    choose: choose::Choose,
    #[command(flatten)]
    live: LiveArgs,
}

#[derive(clap::Args)]
struct AdaptArgs {
    /// The target (`toolschema targets` lists them).
    #[arg(long, value_name = "TARGET", value_parser = adapt::parse_target)]
    to: toolschema::Target,
    /// Print `{"target", "schema", "strict", "fallback", "losses", "changes"}`.
    #[arg(long)]
    report: bool,
    /// OpenAI strict: spill `pattern`, `format`, number ranges and `minItems`/`maxItems` into
    /// descriptions instead of sending them (fine-tuned models lack these keywords).
    #[arg(long)]
    openai_conservative: bool,
    /// Encode what the target cannot hold instead of losing it or sending the tool non-strict:
    /// open maps as `{key, value}` pairs, any-value places as JSON text (the model's arguments
    /// must then be decoded, as the library's `restore` and the proxy do).
    #[arg(long)]
    encode: bool,
    /// The tool to adapt, by name, when the input is a catalog or a live server.
    #[arg(long, value_name = "NAME")]
    tool: Option<String>,
    /// One JSON Schema, or a catalog with `--tool`: a path, or `-` (or nothing) for standard
    /// input.
    #[arg(value_name = "INPUT", conflicts_with_all = ["server", "url"])]
    input: Option<PathBuf>,
    #[command(flatten)]
    live: LiveArgs,
}

#[derive(clap::Args)]
struct ConvertArgs {
    /// The target (`toolschema targets` lists them).
    #[arg(long, value_name = "TARGET", value_parser = adapt::parse_target)]
    to: toolschema::Target,
    /// Print `{"declarations", "report"}` with each tool's strict flag, fallback, renames and losses.
    #[arg(long)]
    report: bool,
    /// OpenAI strict: spill `pattern`, `format`, number ranges and `minItems`/`maxItems` into
    /// descriptions instead of sending them (fine-tuned models lack these keywords).
    #[arg(long)]
    openai_conservative: bool,
    /// Encode what the target cannot hold instead of losing it or sending the tool non-strict:
    /// open maps as `{key, value}` pairs, any-value places as JSON text (the model's arguments
    /// must then be decoded, as the library's `restore` and the proxy do).
    #[arg(long)]
    encode: bool,
    /// A tool catalog (as for `lint`): a path, or `-` (or nothing) for standard input.
    #[arg(value_name = "INPUT", conflicts_with_all = ["server", "url"])]
    input: Option<PathBuf>,
    #[command(flatten)]
    choose: choose::Choose,
    #[command(flatten)]
    live: LiveArgs,
}

/// A live MCP server as the input.
#[derive(clap::Args)]
struct LiveArgs {
    /// Read the tools from a server started as `-- CMD [ARGS...]` (run directly, no shell),
    /// speaking MCP over stdio.
    #[arg(long, requires = "command", conflicts_with = "url")]
    server: bool,
    /// Read the tools from an MCP server over Streamable HTTP.
    #[arg(long, value_name = "URL")]
    url: Option<String>,
    /// An HTTP header for `--url` (`'Name: value'`, repeatable), e.g. for authentication; sent
    /// to that server only and never printed.
    #[arg(long = "header", value_name = "'NAME: VALUE'", requires = "url")]
    headers: Vec<String>,
    /// Give up on a server that has not answered within this many seconds.
    #[arg(long, value_name = "SECS", default_value_t = 30)]
    timeout: u64,
    /// The server command for `--server`, after `--`.
    #[arg(last = true, value_name = "CMD")]
    command: Vec<String>,
}

impl LiveArgs {
    /// The live server to read, when one is given.
    fn server(&self) -> Option<server::Server> {
        if self.server {
            Some(server::Server::Command(self.command.clone()))
        } else {
            self.url.as_ref().map(|url| server::Server::Url {
                url: url.clone(),
                headers: self.headers.clone(),
            })
        }
    }

    /// The catalog: the server's tools, or the file / standard input.
    fn catalog(
        &self,
        input: Option<&std::path::Path>,
    ) -> Result<toolschema::catalog::Catalog, input::InputError> {
        let (value, name) = self.read(input)?;
        toolschema::catalog::Catalog::from_value(value)
            .map_err(|e| input::InputError(format!("{name}: {e}")))
    }

    /// A converted catalog: the server's tools, or the file / standard input read tool by tool
    /// (only one tool's parsed form held at a time; any other input, a bare schema or JSON
    /// Lines, is read whole).
    fn convert(
        &self,
        input: Option<&std::path::Path>,
        choose: &choose::Choose,
        settings: &toolschema::adapt::AdaptSettings,
    ) -> Result<toolschema::adapt::CompactConverted, input::InputError> {
        use toolschema::catalog::RawCatalog;
        let target = settings.target;
        if self.server().is_some() || choose.is_set() {
            let catalog = choose.apply(self.catalog(input)?)?;
            choose::within_limit(catalog.tools.len(), target)?;
            return Ok(toolschema::adapt::convert_compact(catalog, settings));
        }
        let name = input::name(input);
        let text = input::read_text(input)?;
        input::check_depth(&name, &text)?;
        let invalid =
            |e: toolschema::catalog::CatalogError| input::InputError(format!("{name}: {e}"));
        match RawCatalog::parse(&text) {
            Some(raw) => {
                let raw = raw.map_err(invalid)?;
                choose::within_limit(raw.len(), target)?;
                toolschema::adapt::convert_raw(&raw, settings).map_err(invalid)
            }
            None => {
                let value = input::parse(&name, &text)?;
                drop(text);
                let catalog = toolschema::catalog::Catalog::from_value(value).map_err(invalid)?;
                choose::within_limit(catalog.tools.len(), target)?;
                Ok(toolschema::adapt::convert_compact(catalog, settings))
            }
        }
    }

    /// The catalog value: the server's tools, or the file / standard input.
    fn read(
        &self,
        input: Option<&std::path::Path>,
    ) -> Result<(serde_json::Value, String), input::InputError> {
        match self.server() {
            Some(s) => Ok((
                server::list_tools(&s, std::time::Duration::from_secs(self.timeout.max(1)))?,
                s.name(),
            )),
            None => Ok((input::read_json(input)?, input::name(input))),
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Human,
    Json,
}

#[derive(clap::Args)]
struct LintArgs {
    /// Known unions: a JSON array of {"tool", "path", "reason", "issue"}. Fails on an entry that
    /// no longer matches a violation.
    #[arg(long, value_name = "FILE")]
    allow: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
    /// Fail (exit 1) on warnings too.
    #[arg(long)]
    deny_warnings: bool,
    /// A JSON Schema, an array of tools, a `tools/list` result or a JSON-RPC response; a path,
    /// or `-` (or nothing) for standard input.
    #[arg(value_name = "INPUT", conflicts_with_all = ["server", "url"])]
    input: Option<PathBuf>,
    #[command(flatten)]
    choose: choose::Choose,
    #[command(flatten)]
    live: LiveArgs,
}

/// Prints a line on standard output; a reader that went away (`toolschema ... | head`) ends the
/// output quietly instead of a panic.
#[macro_export]
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout().lock(), $($arg)*);
    }};
}

fn run_proxy(args: ProxyArgs) -> u8 {
    let Some(server) = args.live.server() else {
        eprintln!("toolschema proxy: name the server: `--server -- CMD [ARGS...]` or `--url URL`");
        return 2;
    };
    let choose = match args.choose.compile() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("toolschema proxy: {}", e.0);
            return 2;
        }
    };
    let options =
        toolschema::adapt::AdaptOptions::default().openai_conservative(args.openai_conservative);
    let options = proxy::Options {
        settings: (args.target.settings().with_options(options)).with_encoding(!args.no_encode),
        server,
        env: args.env,
        report: args.report,
        timeout: std::time::Duration::from_secs(args.live.timeout.max(1)),
        max_message: args.max_message,
        choose,
    };
    proxy::run(options, args.listen)
}

/// Parsing and checking run on a thread with a large stack: serde_json parses recursively, and
/// deeply nested schemas are ordinary input here.
const STACK_BYTES: usize = 256 << 20;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let worker = std::thread::Builder::new()
        .stack_size(STACK_BYTES)
        .spawn(move || match cli.command {
            Command::Lint(args) => lint::run(&args),
            Command::Adapt(args) => adapt::run_adapt(&args),
            Command::Convert(args) => adapt::run_convert(&args),
            Command::Snapshot(args) => adapt::run_snapshot(&args),
            Command::Proxy(args) => run_proxy(args),
            Command::Targets(args) => targets::run(args.json),
        });
    match worker.map(|h| h.join()) {
        Ok(Ok(code)) => ExitCode::from(code),
        _ => {
            eprintln!("toolschema: internal error");
            ExitCode::from(2)
        }
    }
}
