// The MCP Apps bridge (io.modelcontextprotocol/ui): JSON-RPC over postMessage with the host
// that embeds the app, and with no other window. ui/initialize, then ui/notifications/initialized; the host then sends the
// tool's input and result; tools/call goes through the host to this app's server.
const mcp = (() => {
  // the versions of io.modelcontextprotocol/ui this bridge speaks, newest first: it offers the
  // first and follows what the host answers
  const PROTOCOL_VERSIONS = ["2026-01-26"];
  const state = { protocolVersion: null };
  let nextId = 1;
  const pending = new Map();
  const handlers = {};
  const post = (message) => window.parent.postMessage({ jsonrpc: "2.0", ...message }, "*");
  window.addEventListener("message", (event) => {
    // only the host that embeds this app speaks for it: another window (a sibling frame, a
    // page this one opened) could otherwise feed it results or answer its calls
    if (event.source !== window.parent) return;
    const message = event.data;
    if (!message || message.jsonrpc !== "2.0") return;
    if (message.method === undefined && pending.has(message.id)) {
      const { resolve, reject } = pending.get(message.id);
      pending.delete(message.id);
      if (message.error) reject(new Error(message.error.message));
      else resolve(message.result);
      return;
    }
    const handler = handlers[message.method];
    const result = handler ? handler(message.params || {}) : undefined;
    if (message.id !== undefined) {
      if (handler) post({ id: message.id, result: result || {} });
      else post({ id: message.id, error: { code: -32601, message: "not supported" } });
    }
  });
  const request = (method, params) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject });
      post({ id, method, params });
    });
  const notify = (method, params) => post({ method, params });
  const on = (method, handler) => {
    handlers[method] = handler;
  };
  function applyContext(context) {
    const root = document.documentElement;
    if (context.theme) root.dataset.theme = context.theme;
    const variables = (context.styles && context.styles.variables) || {};
    for (const [name, value] of Object.entries(variables)) {
      if (value) root.style.setProperty(name, value);
    }
  }
  // Starts the app; each tool result the host passes goes to render, an error's text to
  // failed (or to #status). Until a host answers, the app says what it waits for; a page opened
  // without a host says where it belongs.
  async function start(name, render, failed) {
    const nothing = "This view shows a tool's answer inside an MCP host (Claude Desktop or " +
      "another client with MCP Apps); opened on its own it has nothing to show.";
    if (window.parent === window) { // a page of its own: no host to speak to
      say(nothing);
      return;
    }
    say("waiting for the host to pass the tool's answer…");
    const alone = setTimeout(() => say(nothing), 4000);
    on("ui/notifications/tool-result", (result) => {
      say("");
      const text = (result.content || []).map((b) => b.text || "").join(" ");
      if (result.isError) (failed || ((t) => say(t, "error")))(text);
      else render(result.structuredContent);
    });
    const result = await request("ui/initialize", {
      appInfo: { name, version: "0.1.0" },
      appCapabilities: { availableDisplayModes: ["inline"] },
      protocolVersion: PROTOCOL_VERSIONS[0],
    });
    clearTimeout(alone); // a host answered
    // the host says which version it speaks; one this app does not know is said, not ignored
    state.protocolVersion = result.protocolVersion || PROTOCOL_VERSIONS[0];
    if (!PROTOCOL_VERSIONS.includes(state.protocolVersion)) {
      say("this host speaks MCP Apps " + state.protocolVersion + "; this app knows " +
        PROTOCOL_VERSIONS.join(", ") + ": some parts may not work", "error");
    }
    applyContext(result.hostContext || {});
    on("ui/notifications/host-context-changed", applyContext);
    on("ui/resource-teardown", () => ({}));
    notify("ui/notifications/initialized", {});
    new ResizeObserver(() => {
      const box = document.documentElement.getBoundingClientRect();
      notify("ui/notifications/size-changed", { width: box.width, height: box.height });
    }).observe(document.documentElement);
  }
  // A tool's structured answer; a tool error becomes an Error with the tool's own words.
  async function callTool(name, args) {
    const result = await request("tools/call", { name, arguments: args });
    if (result.isError) {
      const text = (result.content || []).map((block) => block.text || "").join(" ");
      throw new Error(text || name + " failed");
    }
    return result.structuredContent;
  }
  return { on, start, callTool, state };
})();

// Text with <em> marks as DOM nodes: the document's own text never becomes markup.
function marked(text) {
  const out = document.createDocumentFragment();
  text.split(/(<em>.*?<\/em>)/).forEach((part) => {
    if (part.startsWith("<em>") && part.endsWith("</em>")) {
      const em = document.createElement("em");
      em.textContent = part.slice(4, -5);
      out.append(em);
    } else if (part) {
      out.append(document.createTextNode(part));
    }
  });
  return out;
}

function element(tag, attributes, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (name === "onclick") node.addEventListener("click", value);
    else if (value !== undefined && value !== null) node.setAttribute(name, value);
  }
  node.append(...children.filter((child) => child !== null && child !== undefined));
  return node;
}

function bytes(size) {
  if (size === undefined || size === null) return "";
  const units = ["B", "KB", "MB", "GB", "TB"];
  let value = size;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return (unit === 0 ? value : value.toFixed(1)) + " " + units[unit];
}

// A line in the app's status area (#status): progress, a result, or an error.
function say(text, kind) {
  const status = document.getElementById("status");
  status.textContent = text;
  status.className = "status " + (kind || "");
}

// What a person reads for a facet's value: a file type's name for its MIME type ("Word
// document", not application/vnd.openxmlformats-officedocument.wordprocessingml.document), a
// language's name for its code; any other value as it is. The value itself stays the filter.
const FILE_TYPES = {
  "application/pdf": "PDF",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "Word document",
  "application/msword": "Word document (old format)",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "Excel workbook",
  "application/vnd.ms-excel": "Excel workbook (old format)",
  "application/vnd.openxmlformats-officedocument.presentationml.presentation": "PowerPoint presentation",
  "application/vnd.ms-powerpoint": "PowerPoint presentation (old format)",
  "application/vnd.oasis.opendocument.text": "OpenDocument text",
  "application/vnd.oasis.opendocument.spreadsheet": "OpenDocument spreadsheet",
  "application/vnd.oasis.opendocument.presentation": "OpenDocument presentation",
  "application/rtf": "Rich text (RTF)",
  "application/epub+zip": "E-book (EPUB)",
  "application/vnd.ms-outlook": "Outlook message",
  "message/rfc822": "E-mail",
  "application/mbox": "Mailbox",
  "text/plain": "Plain text",
  "text/html": "Web page",
  "application/xhtml+xml": "Web page (XHTML)",
  "text/markdown": "Markdown",
  "text/x-web-markdown": "Markdown",
  "text/csv": "CSV table",
  "application/json": "JSON",
  "application/xml": "XML",
  "text/xml": "XML",
  "image/png": "PNG image",
  "image/jpeg": "JPEG image",
  "image/tiff": "TIFF image",
};
const LANGUAGES = typeof Intl.DisplayNames === "function" ? new Intl.DisplayNames(["en"], { type: "language" }) : null;

function label(dim, value) {
  if (dim === "file_type") return FILE_TYPES[String(value).split(";")[0].trim().toLowerCase()] || value;
  if (dim === "language" && LANGUAGES && /^[a-z]{2,3}$/.test(value)) {
    try {
      const name = LANGUAGES.of(value);
      return name && name !== value ? name : value;
    } catch (error) {
      return value;
    }
  }
  return value;
}
