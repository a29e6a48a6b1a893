/**
 * A local stand-in for Stripe's REST API, speaking its wire format for the calls wpreport
 * makes through the official SDK (form-encoded POSTs to /v1/…, JSON answers, Stripe's error
 * envelope), and recording every request so tests can assert what Stripe would have received.
 */

export interface StubRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** The form body, flattened as Stripe receives it: `line_items[0][price]` → `price_…`. */
  form: Record<string, string>;
  /** What the stub answered (a JSON object). */
  response?: Record<string, unknown>;
}

export interface StripeStub {
  url: string;
  requests: StubRequest[];
  /** Requests to one path. */
  calls(path: string): StubRequest[];
  /** The next `count` requests answer 500 (Stripe's api_error), with Stripe-Should-Retry: false. */
  failNext(count?: number): void;
  stop(): Promise<void>;
}

let counter = 0;
const newId = (prefix: string) =>
  `${prefix}_test_${Date.now().toString(36)}${(++counter).toString(36).padStart(6, "0")}`;

export function startStripeStub(): StripeStub {
  const requests: StubRequest[] = [];
  let failures = 0;

  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const url = new URL(request.url);
      const text = request.method === "GET" ? url.search.slice(1) : await request.text();
      const form = Object.fromEntries(new URLSearchParams(text));
      const recorded: StubRequest = {
        method: request.method,
        path: url.pathname,
        headers: Object.fromEntries(request.headers),
        form,
      };
      requests.push(recorded);

      const json = (body: Record<string, unknown>, status = 200, headers: Record<string, string> = {}) => {
        recorded.response = body;
        return new Response(JSON.stringify(body), {
          status,
          headers: { "content-type": "application/json", "request-id": newId("req"), ...headers },
        });
      };
      const error = (status: number, type: string, message: string, headers: Record<string, string> = {}) =>
        json({ error: { type, message } }, status, headers);
      if (!request.headers.get("authorization")?.startsWith("Bearer sk_test_")) {
        return error(401, "invalid_request_error", "Invalid API Key provided.");
      }
      if (failures > 0) {
        failures--;
        return error(500, "api_error", "Something went wrong on Stripe's end.", { "stripe-should-retry": "false" });
      }
      const now = Math.floor(Date.now() / 1000);
      const metadata = (prefix: string) =>
        Object.fromEntries(
          Object.entries(form)
            .filter(([key]) => key.startsWith(`${prefix}[`))
            .map(([key, value]) => [key.slice(prefix.length + 1, -1), value]),
        );

      if (request.method === "POST" && url.pathname === "/v1/checkout/sessions") {
        if (form.mode !== "subscription" || !form["line_items[0][price]"]) {
          return error(400, "invalid_request_error", "Missing required param: line_items[0][price].");
        }
        const id = newId("cs");
        return json({
          id,
          object: "checkout.session",
          cancel_url: form.cancel_url ?? null,
          client_reference_id: form.client_reference_id ?? null,
          created: now,
          customer: form.customer ?? null,
          customer_email: form.customer_email ?? null,
          expires_at: now + 86_400,
          livemode: false,
          metadata: metadata("metadata"),
          mode: form.mode,
          payment_status: "unpaid",
          status: "open",
          subscription: null,
          success_url: form.success_url ?? null,
          url: `https://checkout.stripe.com/c/pay/${id}`,
        });
      }
      if (request.method === "POST" && url.pathname === "/v1/billing_portal/sessions") {
        if (!form.customer) return error(400, "invalid_request_error", "Missing required param: customer.");
        const id = newId("bps");
        return json({
          id,
          object: "billing_portal.session",
          configuration: "bpc_test_default",
          created: now,
          customer: form.customer,
          flow: null,
          livemode: false,
          locale: null,
          on_behalf_of: null,
          return_url: form.return_url ?? null,
          url: `https://billing.stripe.com/p/session/${id}`,
        });
      }
      return error(404, "invalid_request_error", `Unrecognized request URL (${request.method}: ${url.pathname}).`);
    },
  });

  return {
    url: `http://127.0.0.1:${server.port}`,
    requests,
    calls: (path) => requests.filter((request) => request.path === path),
    failNext(count = 1) {
      failures = count;
    },
    async stop() {
      await server.stop(true);
    },
  };
}
