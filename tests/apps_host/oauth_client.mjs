// The official TypeScript SDK's client against an OAuth-protected server (tests/test_oauth.py):
// its own OAuth flow (protected resource metadata, authorization server metadata, dynamic
// registration, PKCE, the RFC 8707 resource), with the authorization page "visited" as a browser
// would (the redirect it answers read for the code). Then the tools it lists, a search, and a
// crawl that its token's scopes do not allow. Prints one JSON line on stdout.
//
//   node oauth_client.mjs URL QUERY
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client";

const [url, query] = process.argv.slice(2);
const REDIRECT = "http://127.0.0.1:9/callback";

class Provider {
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata() {
    return {
      client_name: "pylucene-mcp tests (TypeScript)",
      redirect_uris: [REDIRECT],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(information) {
    this.information = information;
  }
  tokens() {
    return this.stored;
  }
  saveTokens(tokens) {
    this.stored = tokens;
  }
  async redirectToAuthorization(authorizationUrl) {
    const answer = await fetch(authorizationUrl, { redirect: "manual" });
    if (answer.status !== 302) throw new Error(`authorization answered ${answer.status}`);
    const back = new URL(answer.headers.get("location"));
    this.code = back.searchParams.get("code");
    this.authorizations = (this.authorizations ?? 0) + 1;
  }
  saveCodeVerifier(verifier) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

const provider = new Provider();

async function connected() {
  const client = new Client({ name: "pylucene-mcp-ts-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: provider }));
  return client;
}

let client;
let redirected = false;
try {
  client = await connected();
} catch (error) {
  if (!(error instanceof UnauthorizedError)) throw error;
  redirected = true; // the flow stopped at the authorization page: finish it, connect again
  const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
  await transport.finishAuth(provider.code);
  client = await connected();
}
const tools = (await client.listTools()).tools.map((tool) => tool.name);
const found = await client.callTool({ name: "search", arguments: { query, pageSize: 50 } });
let crawl;
try {
  const result = await client.callTool({ name: "startCrawl", arguments: {} });
  crawl = result.isError ? "tool error" : "allowed";
} catch (error) {
  crawl = `refused: ${error.constructor.name}: ${String(error.message).slice(0, 200)}`;
}
await client.close();
console.log(
  JSON.stringify({
    redirected,
    tools,
    paths: (found.structuredContent?.documents ?? []).map((hit) => hit.filePath),
    crawl,
    scope: provider.stored?.scope,
  }),
);
