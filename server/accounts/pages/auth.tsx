/** Sign-up, log-in and the account page (password change). */

import type { WebContext } from "../../web/context.ts";
import { FormError } from "../../web/pages/common.tsx";
import { Csrf, Notice } from "../../web/render.tsx";
import { MIN_PASSWORD_LENGTH } from "../password.ts";

export function SignupPage({ ctx, email, error }: { ctx: WebContext; email?: string; error?: string }) {
  return (
    <div class="card stack narrow">
      <h1>Create your free account</h1>
      <p class="muted">3 reports a month, API tokens included. No card needed.</p>
      <FormError message={error} />
      <form method="post" action="/signup">
        <Csrf ctx={ctx} />
        <div class="field">
          <label for="email">Email</label>
          <input
            id="email"
            name="email"
            type="email"
            autocomplete="email"
            required
            value={email ?? ""}
            aria-describedby={error ? "form-error" : undefined}
          />
        </div>
        <div class="field">
          <label for="password">
            Password <span class="hint">At least {MIN_PASSWORD_LENGTH} characters.</span>
          </label>
          <input
            id="password"
            name="password"
            type="password"
            autocomplete="new-password"
            required
            minLength={MIN_PASSWORD_LENGTH}
          />
        </div>
        <button type="submit">Create account</button>
      </form>
      <p class="small">
        Already have an account? <a href="/login">Log in</a>.
      </p>
    </div>
  );
}

export function LoginPage({
  ctx,
  email,
  error,
  next,
  query = {},
}: {
  ctx: WebContext;
  email?: string;
  error?: string;
  /** Where to go after logging in (kept through the form). */
  next?: string;
  query?: Record<string, string | undefined>;
}) {
  return (
    <div class="card stack narrow">
      <Notice query={query} />
      <h1>Log in</h1>
      <FormError message={error} />
      <form method="post" action={next ? `/login?${new URLSearchParams({ next })}` : "/login"}>
        <Csrf ctx={ctx} />
        <div class="field">
          <label for="email">Email</label>
          <input id="email" name="email" type="email" autocomplete="username" required value={email ?? ""} />
        </div>
        <div class="field">
          <label for="password">Password</label>
          <input id="password" name="password" type="password" autocomplete="current-password" required />
        </div>
        <button type="submit">Log in</button>
      </form>
      <p class="small">
        New here? <a href="/signup">Create a free account</a>.
      </p>
    </div>
  );
}

export function AccountPage({ ctx, hasPassword, error }: { ctx: WebContext; hasPassword: boolean; error?: string }) {
  return (
    <div class="stack">
      <h1>Your account</h1>
      <div class="card stack">
        <p>
          Signed in as <strong>{ctx.session?.email}</strong>.
        </p>
        <h2 id="password-heading">{hasPassword ? "Change password" : "Set a password"}</h2>
        <FormError message={error} />
        <form method="post" action="/account/password" aria-labelledby="password-heading">
          <Csrf ctx={ctx} />
          {hasPassword ? (
            <div class="field">
              <label for="current">Current password</label>
              <input id="current" name="current" type="password" autocomplete="current-password" required />
            </div>
          ) : null}
          <div class="field">
            <label for="password">
              New password{" "}
              <span class="hint">At least {MIN_PASSWORD_LENGTH} characters. Other sessions will be logged out.</span>
            </label>
            <input
              id="password"
              name="password"
              type="password"
              autocomplete="new-password"
              required
              minLength={MIN_PASSWORD_LENGTH}
            />
          </div>
          <button type="submit">Save password</button>
        </form>
      </div>
    </div>
  );
}
