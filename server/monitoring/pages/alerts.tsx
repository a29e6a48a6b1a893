/**
 * The pages of alerts: email recipients and the digest (/alerts), webhooks (/alerts/webhooks:
 * list and create, the secret shown once) and one webhook (/alerts/webhooks/{id}: send a
 * test, rotate the secret, enable or disable, delete, the delivery log with redeliver).
 * Server-rendered like every page (Preact escapes every text and attribute).
 */
import { SUBSCRIBABLE_EVENT_TYPES, type SubscribableEventType } from "../../../shared/events.ts";
import type { Delivery, Webhook } from "../../../shared/monitoring-api.ts";
import type { WebContext } from "../../web/context.ts";
import { FormError, formatDate, Table } from "../../web/pages/common.tsx";
import { Csrf, Notice } from "../../web/render.tsx";
import type { AlertSettingsView } from "../email/alert-settings.service.ts";

/** What each event means, in the forms. */
export const EVENT_LABELS: Record<SubscribableEventType, string> = {
  "monitor.regressed": "A monitor's run regressed (fails the gate against its baseline)",
  "monitor.skipped": "A monitor's run was skipped (quota used up, service busy…)",
  "vulnerability.found": "A new advisory affects one of your sites",
  "report.failed": "An analysis failed",
  "report.completed": "A report completed (every report: many messages)",
};

/** Notices after a redirect, by key (never text from the query string itself). */
const NOTICES: Record<string, string> = {
  alerts_saved:
    "Email alerts saved. A new recipient gets an email with a link to confirm; it gets alerts only once it has confirmed.",
  webhook_deleted: "Webhook deleted. Its pending deliveries will not be made.",
  webhook_test_sent: "Test event queued: it appears in the delivery log below within seconds.",
  webhook_redelivered: "Redelivery queued: it appears in the delivery log below within seconds.",
  webhook_enabled: "Webhook enabled. Deliveries resume with the next event.",
  webhook_disabled: "Webhook disabled. It receives no events until you enable it again.",
};

export const eventField = (type: string) => `event:${type}`;

/** The events ticked in a submitted form (the checkboxes EventChoices draws). */
export const chosenEvents = (form: Record<string, string>) =>
  SUBSCRIBABLE_EVENT_TYPES.filter((type) => form[eventField(type)] === "on");

function EventChoices({ legend, chosen, id }: { legend: string; chosen: readonly string[]; id: string }) {
  return (
    <fieldset class="choices">
      <legend>{legend}</legend>
      {SUBSCRIBABLE_EVENT_TYPES.map((type) => (
        <label key={type} class="choice" for={`${id}-${type}`}>
          <input
            type="checkbox"
            id={`${id}-${type}`}
            name={eventField(type)}
            value="on"
            checked={chosen.includes(type)}
          />{" "}
          <span class="mono">{type}</span> <span class="hint">{EVENT_LABELS[type]}</span>
        </label>
      ))}
    </fieldset>
  );
}

function AlertsNav({ current }: { current: "email" | "webhooks" }) {
  return (
    <nav aria-label="Alerts" class="subnav">
      <a href="/alerts" aria-current={current === "email" ? "page" : undefined}>
        Email alerts
      </a>{" "}
      ·{" "}
      <a href="/alerts/webhooks" aria-current={current === "webhooks" ? "page" : undefined}>
        Webhooks
      </a>
    </nav>
  );
}

export function AlertsPage(props: {
  ctx: WebContext;
  query: Record<string, string | undefined>;
  settings: AlertSettingsView;
  emailEnabled: boolean;
  accountEmail: string;
  recipientsText?: string;
  error?: string;
}) {
  const { ctx, settings } = props;
  return (
    <div class="stack">
      <Notice query={props.query} notices={NOTICES} />
      <h1>Alerts</h1>
      <AlertsNav current="email" />
      {props.emailEnabled ? null : (
        <div class="alert warning" role="status">
          Email is off on this server (its operator has not set SMTP_URL): your settings are kept, but no email is sent
          until it is. Webhooks work regardless.
        </div>
      )}
      <div class="card stack">
        <h2 id="email-heading">Email alerts</h2>
        <p class="muted">
          Who is told when something needs attention. {props.accountEmail} is also told when a webhook of this account
          is disabled.
        </p>
        <FormError message={props.error} />
        <form method="post" action="/alerts" aria-labelledby="email-heading">
          <Csrf ctx={ctx} />
          <div class="field">
            <label for="recipients">
              Recipients <span class="hint">Email addresses, one per line (at most 10). None: no alert emails.</span>
            </label>
            <textarea id="recipients" name="recipients" rows={4} cols={40} autocomplete="off">
              {props.recipientsText ?? settings.recipients.join("\n")}
            </textarea>
          </div>
          <fieldset class="choices">
            <legend>When</legend>
            <label class="choice" for="digest-off">
              <input type="radio" id="digest-off" name="digest" value="off" checked={!settings.digest} /> At once, one
              email per event
            </label>
            <label class="choice" for="digest-on">
              <input type="radio" id="digest-on" name="digest" value="on" checked={settings.digest} /> A daily digest at
              07:00 UTC, with everything since the previous one
            </label>
          </fieldset>
          <EventChoices legend="About" chosen={settings.events} id="alert-event" />
          <button type="submit">Save email alerts</button>
        </form>
        {props.emailEnabled ? <PendingRecipients settings={settings} /> : null}
      </div>
    </div>
  );
}

/** Recipients who have not confirmed yet get nothing: the page says who. */
function PendingRecipients({ settings }: { settings: AlertSettingsView }) {
  const pending = settings.recipients.filter((address) => !settings.confirmed.includes(address));
  if (pending.length === 0) return null;
  return (
    <div class="stack">
      <h3>Waiting for confirmation</h3>
      <p class="muted">
        These addresses get no alert until they open the link of the confirmation email sent to them (it works for 7
        days; saving again after a day sends a new one).
      </p>
      <ul>
        {pending.map((address) => (
          <li key={address} class="mono">
            {address}
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * The page of a recipient's confirmation link: a button to press, not a GET that confirms —
 * mail scanners open links by themselves, and must not subscribe anyone.
 */
export function ConfirmRecipientPage(props: {
  ctx: WebContext;
  token: string;
  email: string | undefined;
  confirmed?: boolean;
}) {
  if (props.confirmed)
    return (
      <div class="card stack">
        <h1>Alert emails confirmed</h1>
        <p>{props.email} now gets this account's wpreport alert emails. To stop them, ask the account to remove you.</p>
      </div>
    );
  if (!props.email)
    return (
      <div class="card stack">
        <h1>This link does not work</h1>
        <p>It was used already, it expired (after 7 days), or the address was removed from the alerts.</p>
      </div>
    );
  return (
    <div class="card stack">
      <h1>Confirm alert emails</h1>
      <p>
        Confirm that <span class="mono">{props.email}</span> wants a wpreport account's alert emails. Nothing is sent to
        it until you do.
      </p>
      <form method="post" action="/alerts/confirm">
        <Csrf ctx={props.ctx} />
        <input type="hidden" name="token" value={props.token} />
        <button type="submit">Confirm</button>
      </form>
    </div>
  );
}

function WebhookState({ webhook }: { webhook: Webhook }) {
  if (webhook.status === "disabled") return <span class="status-revoked">disabled</span>;
  if (webhook.failing_since) return <span class="sev-medium">failing since {formatDate(webhook.failing_since)}</span>;
  return <span class="status-active">enabled</span>;
}

function SecretOnce({ heading, secret, note }: { heading: string; secret: string; note?: string }) {
  return (
    <div class="card stack" role="status" aria-labelledby="secret-heading">
      <h2 id="secret-heading">{heading}</h2>
      <p>
        <strong>Copy it now — it is shown only once.</strong> Your receiver verifies each delivery's signature with it
        (any Standard Webhooks library: <span class="mono">new Webhook(secret).verify(body, headers)</span>).
        {note ? ` ${note}` : ""}
      </p>
      <div class="token-once">
        <code id="new-secret" class="mono">
          {secret}
        </code>
        <button type="button" class="secondary" data-copy="#new-secret">
          Copy
        </button>
      </div>
    </div>
  );
}

export function WebhooksPage(props: {
  ctx: WebContext;
  query: Record<string, string | undefined>;
  webhooks: Webhook[];
  nextCursor: string | null;
  available: boolean;
  created?: Webhook & { secret: string };
  form?: { url: string; events: string[]; format: string; description: string };
  error?: string;
}) {
  const { ctx, webhooks, created } = props;
  const form = props.form ?? { url: "", events: ["monitor.regressed"], format: "standard", description: "" };
  return (
    <div class="stack">
      <Notice query={props.query} notices={NOTICES} />
      <h1>Webhooks</h1>
      <AlertsNav current="webhooks" />
      {created ? (
        <SecretOnce heading={`Your webhook to ${created.url} is ready: its signing secret`} secret={created.secret} />
      ) : null}
      <div class="card stack">
        <h2 id="create-heading">Add a webhook</h2>
        <p class="muted">
          Events are POSTed to your URL as signed JSON (Standard Webhooks), retried for about a day when it fails. The
          URL must be a public address.
        </p>
        {props.available ? null : (
          <div class="alert warning" role="status">
            Webhooks are not set up on this server: its operator must set WEBHOOK_SECRET_KEY.
          </div>
        )}
        <FormError message={props.error} />
        <form method="post" action="/alerts/webhooks" aria-labelledby="create-heading">
          <Csrf ctx={ctx} />
          <div class="field">
            <label for="url">
              Endpoint URL <span class="hint">e.g. https://hooks.example.com/wpreport</span>
            </label>
            <input id="url" name="url" type="url" inputMode="url" required maxLength={2048} value={form.url} />
          </div>
          <div class="field">
            <label for="format">Body</label>
            <select id="format" name="format">
              <option value="standard" selected={form.format !== "slack"}>
                Standard: the signed JSON event
              </option>
              <option value="slack" selected={form.format === "slack"}>
                Slack-compatible text (Slack, Mattermost, Discord /slack)
              </option>
            </select>
          </div>
          <div class="field">
            <label for="description">
              Note <span class="hint">Optional: what this endpoint is.</span>
            </label>
            <input id="description" name="description" type="text" maxLength={200} value={form.description} />
          </div>
          <EventChoices legend="Events" chosen={form.events} id="webhook-event" />
          <button type="submit">Add webhook</button>
        </form>
      </div>
      <section aria-labelledby="webhooks-heading">
        <h2 id="webhooks-heading">Your webhooks</h2>
        {webhooks.length === 0 ? (
          <p class="muted">No webhooks yet.</p>
        ) : (
          <Table caption="Webhooks" stack head={["Endpoint", "Events", "Format", "State", "Created"]}>
            {webhooks.map((webhook) => (
              <tr
                key={webhook.id}
                data-webhook={webhook.id}
                class={webhook.status === "disabled" ? "inactive" : undefined}
              >
                <td data-label="Endpoint">
                  <a href={`/alerts/webhooks/${webhook.id}`} class="mono">
                    {webhook.url}
                  </a>
                  {webhook.description ? <div class="small muted">{webhook.description}</div> : null}
                </td>
                <td data-label="Events" class="small">
                  {webhook.events.join(", ")}
                </td>
                <td data-label="Format">{webhook.format}</td>
                <td data-label="State">
                  <WebhookState webhook={webhook} />
                </td>
                <td data-label="Created">{formatDate(webhook.created_at)}</td>
              </tr>
            ))}
          </Table>
        )}
        {props.nextCursor ? (
          <p>
            <a href={`/alerts/webhooks?before=${props.nextCursor}`}>Older webhooks</a>
          </p>
        ) : null}
      </section>
    </div>
  );
}

function deliveryState(delivery: Delivery): string {
  if (delivery.status === "pending")
    return delivery.next_attempt_at ? `retrying ${formatDate(delivery.next_attempt_at)}` : "sending";
  return delivery.status;
}

export function WebhookPage(props: {
  ctx: WebContext;
  query: Record<string, string | undefined>;
  webhook: Webhook;
  deliveries: Delivery[];
  nextCursor: string | null;
  rotated?: { secret: string; previous_secret_expires_at: string | null };
}) {
  const { ctx, webhook, deliveries } = props;
  const base = `/alerts/webhooks/${webhook.id}`;
  return (
    <div class="stack">
      <Notice query={props.query} notices={NOTICES} />
      <p class="small">
        <a href="/alerts/webhooks">← Webhooks</a>
      </p>
      <h1>
        Webhook <span class="mono">{webhook.url}</span>
      </h1>
      {props.rotated ? (
        <SecretOnce
          heading="The new signing secret"
          secret={props.rotated.secret}
          note={
            props.rotated.previous_secret_expires_at
              ? `Until ${formatDate(props.rotated.previous_secret_expires_at)} deliveries are signed with the previous secret too, so your receiver can switch without missing one.`
              : "The previous secret no longer signs."
          }
        />
      ) : null}
      {webhook.status === "disabled" ? (
        <div class="alert error" role="status">
          This webhook is disabled and receives no events. {webhook.disabled_reason}
        </div>
      ) : webhook.failing_since ? (
        <div class="alert warning" role="status">
          Every delivery has failed since {formatDate(webhook.failing_since)}. After 3 days of this the webhook is
          disabled.
        </div>
      ) : null}
      <div class="card stack">
        <dl class="facts">
          <dt>State</dt>
          <dd>
            <WebhookState webhook={webhook} />
          </dd>
          <dt>Events</dt>
          <dd class="mono">{webhook.events.join(", ")}</dd>
          <dt>Body</dt>
          <dd>{webhook.format === "slack" ? "Slack-compatible text" : "Standard (signed JSON event)"}</dd>
          {webhook.description ? (
            <>
              <dt>Note</dt>
              <dd>{webhook.description}</dd>
            </>
          ) : null}
          <dt>Created</dt>
          <dd>{formatDate(webhook.created_at)}</dd>
          {webhook.previous_secret_expires_at ? (
            <>
              <dt>Previous secret</dt>
              <dd>signs too until {formatDate(webhook.previous_secret_expires_at)}</dd>
            </>
          ) : null}
        </dl>
        <div class="row actions">
          <form method="post" action={`${base}/test`} class="inline">
            <Csrf ctx={ctx} />
            <button type="submit">Send test</button>
          </form>
          <form
            method="post"
            action={`${base}/rotate`}
            class="inline"
            data-confirm="Make a new signing secret? The current one keeps signing for 24 hours."
          >
            <Csrf ctx={ctx} />
            <button type="submit" class="secondary">
              Rotate secret
            </button>
          </form>
          <form method="post" action={`${base}/${webhook.status === "disabled" ? "enable" : "disable"}`} class="inline">
            <Csrf ctx={ctx} />
            <button type="submit" class="secondary">
              {webhook.status === "disabled" ? "Enable" : "Disable"}
            </button>
          </form>
          <form
            method="post"
            action={`${base}/delete`}
            class="inline"
            data-confirm={`Delete the webhook to ${webhook.url}? Its delivery log goes with it.`}
          >
            <Csrf ctx={ctx} />
            <button type="submit" class="danger">
              Delete
            </button>
          </form>
        </div>
      </div>
      <section aria-labelledby="deliveries-heading">
        <h2 id="deliveries-heading">Delivery log</h2>
        {deliveries.length === 0 ? (
          <p class="muted">No deliveries yet. Send a test to see one.</p>
        ) : (
          <Table
            caption="Deliveries"
            stack
            head={["Event", "When", "State", "Answer", "Attempts", { label: "Actions", visuallyHidden: true }]}
          >
            {deliveries.map((delivery) => (
              <tr key={delivery.id} data-delivery={delivery.id} data-status={delivery.status}>
                <td data-label="Event">
                  <span class="mono">{delivery.event_type}</span>
                  <div class="small muted mono">{delivery.event_id}</div>
                  {delivery.trigger === "event" ? null : <div class="small muted">{delivery.trigger}</div>}
                </td>
                <td data-label="When">{formatDate(delivery.created_at)}</td>
                <td data-label="State" class={delivery.status === "succeeded" ? "status-active" : undefined}>
                  {deliveryState(delivery)}
                </td>
                <td data-label="Answer" class="small">
                  {delivery.last_status === null ? "—" : <strong>{delivery.last_status}</strong>}
                  {delivery.last_duration_ms === null ? null : ` in ${delivery.last_duration_ms} ms`}
                  {delivery.last_error ? <div>{delivery.last_error}</div> : null}
                  {delivery.last_response ? <div class="mono muted">{delivery.last_response}</div> : null}
                </td>
                <td data-label="Attempts">{delivery.attempts}</td>
                <td>
                  <form method="post" action={`${base}/deliveries/${delivery.id}/redeliver`} class="inline">
                    <Csrf ctx={ctx} />
                    <button
                      type="submit"
                      class="secondary"
                      aria-label={`Redeliver ${delivery.event_type} ${delivery.id}`}
                    >
                      Redeliver
                    </button>
                  </form>
                </td>
              </tr>
            ))}
          </Table>
        )}
        {props.nextCursor ? (
          <p>
            <a href={`${base}?before=${props.nextCursor}`}>Older deliveries</a>
          </p>
        ) : null}
      </section>
    </div>
  );
}
