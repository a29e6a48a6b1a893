/**
 * A local stand-in for the part of GitHub's REST API the Action uses (issue comments), in
 * GitHub's real request and response format. GitHub's servers cannot be reached from here;
 * this is the only thing about the Action that is simulated.
 */
import type { Server } from "bun";

export interface StubComment {
  id: number;
  body: string;
  user: { login: string };
  created_at: string;
  updated_at: string;
  html_url: string;
}

export interface GitHubStub {
  url: string;
  comments: StubComment[];
  requests: string[];
  stop(): void;
}

export function startGitHubStub(owner: string, repo: string, issue: number): GitHubStub {
  const comments: StubComment[] = [];
  const requests: string[] = [];
  let nextId = 1000;
  const listPath = `/repos/${owner}/${repo}/issues/${issue}/comments`;
  const server: Server<undefined> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      requests.push(`${request.method} ${url.pathname}`);
      if (
        !request.headers.get("authorization")?.startsWith("token ") &&
        !request.headers.get("authorization")?.startsWith("Bearer ")
      ) {
        return Response.json(
          { message: "Requires authentication", documentation_url: "https://docs.github.com/rest" },
          { status: 401 },
        );
      }
      if (url.pathname === listPath && request.method === "GET") {
        return Response.json(comments, { headers: { "x-ratelimit-remaining": "4999" } });
      }
      if (url.pathname === listPath && request.method === "POST") {
        const { body } = (await request.json()) as { body: string };
        const now = new Date().toISOString();
        const comment = {
          id: nextId++,
          body,
          user: { login: "github-actions[bot]" },
          created_at: now,
          updated_at: now,
          html_url: `https://github.com/${owner}/${repo}/pull/${issue}#issuecomment-${nextId}`,
        };
        comments.push(comment);
        return Response.json(comment, { status: 201 });
      }
      const update = new RegExp(`^/repos/${owner}/${repo}/issues/comments/(\\d+)$`).exec(url.pathname);
      if (update && request.method === "PATCH") {
        const comment = comments.find((item) => item.id === Number(update[1]));
        if (!comment) return Response.json({ message: "Not Found" }, { status: 404 });
        comment.body = ((await request.json()) as { body: string }).body;
        comment.updated_at = new Date().toISOString();
        return Response.json(comment);
      }
      return Response.json(
        { message: "Not Found", documentation_url: "https://docs.github.com/rest" },
        { status: 404 },
      );
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, comments, requests, stop: () => server.stop(true) };
}
