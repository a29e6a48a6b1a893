/**
 * A tiny real DNS server for tests: UDP on 127.0.0.1, a random port, wire format by
 * dns-packet. It plays a hostile or split-horizon resolver: names answer whatever the zone
 * says, with TTL 0 so nothing may cache an answer. Every question is counted.
 */
import dgram from "node:dgram";
import type { AddressInfo } from "node:net";
import * as packet from "dns-packet";

/** Answers for one name; a function gets the 1-based number of this question (rebinding). */
export interface ZoneEntry {
  A?: string[] | ((nth: number) => string[]);
  AAAA?: string[] | ((nth: number) => string[]);
  /** Answer with a CNAME to this name, followed by that name's records. */
  CNAME?: string;
  /** Answer with this response code (e.g. SERVFAIL) and no records. */
  rcode?: "SERVFAIL" | "REFUSED" | "NXDOMAIN";
}

export interface DnsServer {
  /** "127.0.0.1:port", for DNS_SERVERS. */
  address: string;
  /** Questions seen, as "TYPE name" (lower case, no trailing dot). */
  questions: string[];
  count(name: string, type?: "A" | "AAAA"): number;
  stop(): Promise<void>;
}

const RCODES = { NOERROR: 0, SERVFAIL: 2, NXDOMAIN: 3, REFUSED: 5 } as const;

export async function startDnsServer(zone: Record<string, ZoneEntry>): Promise<DnsServer> {
  const socket = dgram.createSocket("udp4");
  const questions: string[] = [];
  const seen = new Map<string, number>();
  const lookup = (name: string) => zone[name.toLowerCase().replace(/\.$/, "")];

  const records = (name: string, type: "A" | "AAAA", depth = 0): packet.Answer[] => {
    const entry = lookup(name);
    if (!entry || depth > 4) return [];
    if (entry.CNAME) {
      return [
        { type: "CNAME", name, ttl: 0, class: "IN", data: entry.CNAME },
        ...records(entry.CNAME, type, depth + 1),
      ];
    }
    const key = `${type} ${name.toLowerCase()}`;
    const nth = (seen.get(key) ?? 0) + 1;
    seen.set(key, nth);
    const source = entry[type];
    const data = typeof source === "function" ? source(nth) : (source ?? []);
    return data.map((address) => ({ type, name, ttl: 0, class: "IN" as const, data: address }));
  };

  socket.on("message", (message, remote) => {
    let query: packet.Packet;
    try {
      query = packet.decode(message);
    } catch {
      return;
    }
    const question = query.questions?.[0];
    if (!question) return;
    questions.push(`${question.type} ${question.name.toLowerCase().replace(/\.$/, "")}`);
    const entry = lookup(question.name);
    const rcode = !entry ? "NXDOMAIN" : (entry.rcode ?? "NOERROR");
    const answers =
      rcode === "NOERROR" && (question.type === "A" || question.type === "AAAA")
        ? records(question.name, question.type)
        : [];
    const response = packet.encode({
      id: query.id,
      type: "response",
      // QR is set by type; RD copied, RA set, AA set (we are "authoritative"), RCODE low bits.
      flags: packet.RECURSION_DESIRED | packet.RECURSION_AVAILABLE | packet.AUTHORITATIVE_ANSWER | RCODES[rcode],
      questions: query.questions,
      answers,
    });
    socket.send(response, remote.port, remote.address);
  });

  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", () => resolve()));
  const { port } = socket.address() as AddressInfo;
  return {
    address: `127.0.0.1:${port}`,
    questions,
    count: (name, type) =>
      questions.filter((line) => line.endsWith(` ${name}`) && (!type || line.startsWith(`${type} `))).length,
    stop: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}
