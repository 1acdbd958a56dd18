/**
 * A minimal MCP Apps host for the browser test (test/e2e/mcp-app.test.ts): renders the App's HTML
 * in a sandboxed iframe and speaks the Apps protocol to it with the SDK's AppBridge. The App's
 * server tool calls go to `hostCallTool`, which the test exposes: its real MCP client forwards
 * them to the Engram server.
 */
import { AppBridge, PostMessageTransport, type McpUiHostContext, type McpUiTheme } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { CallToolRequest, CallToolResult } from '@modelcontextprotocol/client';

interface HostWindow {
  hostCallTool(params: CallToolRequest['params']): Promise<CallToolResult>;
  mountApp(options: { html: string; toolInput: Record<string, unknown>; toolResult: CallToolResult; theme: McpUiTheme }): Promise<void>;
  setTheme(theme: McpUiTheme): Promise<void>;
}
const host = window as unknown as Window & HostWindow;

host.mountApp = async ({ html, toolInput, toolResult, theme }) => {
  const iframe = document.createElement('iframe');
  iframe.title = 'Engram conflict queue';
  // No allow-same-origin: the App runs in an opaque origin and reaches nothing but this bridge.
  iframe.setAttribute('sandbox', 'allow-scripts');
  document.body.append(iframe);
  let context: McpUiHostContext = { theme, locale: 'en-US', timeZone: 'UTC', platform: 'web', displayMode: 'inline' };
  const bridge = new AppBridge(null, { name: 'engram-test-host', version: '1.0.0' }, { serverTools: {}, logging: {} }, { hostContext: context });
  bridge.oncalltool = (params) => host.hostCallTool(params);
  bridge.onsizechange = ({ height }) => {
    if (height !== undefined) iframe.style.height = `${height}px`;
  };
  const initialized = new Promise<void>((resolve) => {
    bridge.oninitialized = () => resolve();
  });
  await bridge.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!));
  iframe.srcdoc = html;
  await initialized;
  await bridge.sendToolInput({ arguments: toolInput });
  await bridge.sendToolResult(toolResult);
  host.setTheme = async (next) => {
    context = { ...context, theme: next };
    document.documentElement.style.colorScheme = next;
    bridge.setHostContext(context);
  };
};
