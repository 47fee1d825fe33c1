// The test host of tests/test_apps.py: the official MCP Apps host side (AppBridge over
// PostMessageTransport, @modelcontextprotocol/ext-apps), loading an app into a sandboxed iframe
// under the spec's default CSP. Tool calls go to the real server through window.mcpCall (a
// Python function the test exposes).
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";

const CSP =
  "<meta http-equiv='Content-Security-Policy' content=\"default-src 'none'; " +
  "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; " +
  "media-src data:; connect-src 'none'; object-src 'none'; frame-src 'none'\">";

window.calls = [];

window.startApp = async (html, tool, args, theme, width) => {
  const frame = document.createElement("iframe");
  frame.setAttribute("sandbox", "allow-scripts");
  frame.style = `border:0;width:${width || 900}px;height:600px`;
  frame.srcdoc = html.replace("<head>", "<head>" + CSP);
  document.body.append(frame);
  const bridge = new AppBridge(
    null,
    { name: "pylucene-mcp test host", version: "1" },
    { serverTools: {} },
    { hostContext: { theme, displayMode: "inline" } },
  );
  bridge.oncalltool = async (params) => {
    window.calls.push(params.name);
    return await window.mcpCall(params.name, params.arguments || {});
  };
  bridge.onsizechange = ({ height }) => {
    if (height === undefined) return;
    window.appHeight = Math.max(600, Math.ceil(height));
    frame.style.height = window.appHeight + "px";
  };
  const started = new Promise((resolve) => {
    bridge.oninitialized = async () => {
      await bridge.sendToolInput({ arguments: args });
      await bridge.sendToolResult(await window.mcpCall(tool, args));
      resolve();
    };
  });
  window.bridge = bridge;
  await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
  await started;
};
