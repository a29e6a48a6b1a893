/** API tokens: create (shown once, with a copy button), list, revoke. */

import type { WebContext } from "../../web/context.ts";
import { FormError, formatDate, Table } from "../../web/pages/common.tsx";
import { Csrf, Notice } from "../../web/render.tsx";
import type { TokenRecord } from "../token.service.ts";

function state(token: TokenRecord): string {
  if (token.revokedAt) return "revoked";
  if (token.expiresAt && token.expiresAt <= new Date()) return "expired";
  return "active";
}

export function TokensPage(props: {
  ctx: WebContext;
  query: Record<string, string | undefined>;
  tokens: TokenRecord[];
  created?: { token: string; name: string };
  error?: string;
  apiUrl: string;
}) {
  const { ctx, tokens, created } = props;
  return (
    <div class="stack">
      <Notice query={props.query} />
      <h1>API tokens</h1>
      {created ? (
        <div class="card stack" role="status" aria-labelledby="new-token-heading">
          <h2 id="new-token-heading">Your new token “{created.name}”</h2>
          <p>
            <strong>Copy it now — it is shown only once.</strong> We store only a hash of it.
          </p>
          <div class="token-once">
            <code id="new-token" class="mono">
              {created.token}
            </code>
            <button type="button" class="secondary" data-copy="#new-token">
              Copy
            </button>
          </div>
          <p class="small">Try it (with the token in the environment variable WPREPORT_TOKEN):</p>
          <pre class="command">
            <code>{`curl -H "Authorization: Bearer $WPREPORT_TOKEN" ${props.apiUrl}/api/usage`}</code>
          </pre>
        </div>
      ) : null}
      <div class="card stack">
        <h2 id="create-heading">Create a token</h2>
        <FormError message={props.error} />
        <form method="post" action="/tokens" aria-labelledby="create-heading">
          <Csrf ctx={ctx} />
          <div class="row">
            <div class="field">
              <label for="name">
                Name <span class="hint">What it is for, e.g. “GitHub Actions — client A”.</span>
              </label>
              <input id="name" name="name" type="text" maxLength={100} required />
            </div>
            <div class="field">
              <label for="expires">Expires</label>
              <select id="expires" name="expires">
                <option value="">Never</option>
                <option value="30">In 30 days</option>
                <option value="90" selected>
                  In 90 days
                </option>
                <option value="365">In a year</option>
              </select>
            </div>
            <div>
              <button type="submit">Create token</button>
            </div>
          </div>
        </form>
      </div>
      <section aria-labelledby="tokens-heading">
        <h2 id="tokens-heading">Your tokens</h2>
        {tokens.length === 0 ? (
          <p class="muted">No tokens yet.</p>
        ) : (
          <Table
            caption="API tokens"
            stack
            head={[
              "Name",
              "Token",
              "Created",
              "Last used",
              "Expires",
              "Status",
              { label: "Actions", visuallyHidden: true },
            ]}
          >
            {tokens.map((token) => (
              <tr key={token.id} data-token={token.id} class={state(token) === "active" ? undefined : "inactive"}>
                <td data-label="Name">{token.name}</td>
                <td data-label="Token" class="mono">
                  {token.prefix}…
                </td>
                <td data-label="Created">{formatDate(token.createdAt)}</td>
                <td data-label="Last used" class="last-used">
                  {token.lastUsedAt ? formatDate(token.lastUsedAt) : "never"}
                </td>
                <td data-label="Expires">{token.expiresAt ? formatDate(token.expiresAt) : "never"}</td>
                <td data-label="Status" class={`status-${state(token)}`}>
                  {state(token)}
                </td>
                <td>
                  {state(token) === "active" ? (
                    <form
                      method="post"
                      action={`/tokens/${token.id}/revoke`}
                      class="inline"
                      data-confirm={`Revoke “${token.name}”? Anything using it stops working at once.`}
                    >
                      <Csrf ctx={ctx} />
                      <button type="submit" class="danger" aria-label={`Revoke token ${token.name}`}>
                        Revoke
                      </button>
                    </form>
                  ) : null}
                </td>
              </tr>
            ))}
          </Table>
        )}
      </section>
    </div>
  );
}
