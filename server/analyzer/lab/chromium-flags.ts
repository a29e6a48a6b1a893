/**
 * The flags the lab's Chromium runs with (docs/target-policy.md, "Lab"). The network ones are
 * the safety core: every request goes to the policy proxy, nothing bypasses it (Chromium
 * bypasses proxies for loopback unless told `<-loopback>`), Chromium's own resolver answers
 * nothing (so no name is ever resolved by the browser, only by the proxy), no QUIC (UDP would
 * not go through an HTTP proxy) and WebRTC may not use UDP outside the proxy (so, none).
 */
export function labChromiumArgs(proxyUrl: string, maxHeapMb: number, acceptKey?: string): string[] {
  const proxyHost = new URL(proxyUrl).hostname;
  return [
    // The one certificate key a staging site's own origin may present despite errors
    // (site-certificate.ts); every other certificate is verified.
    ...(acceptKey ? [`--ignore-certificate-errors-spki-list=${acceptKey}`] : []),
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    `--proxy-server=${proxyUrl}`,
    "--proxy-bypass-list=<-loopback>",
    `--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE ${proxyHost}`,
    "--disable-quic",
    "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
    "--dns-prefetch-disable",
    "--disable-extensions",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-domain-reliability",
    "--disable-breakpad",
    "--no-first-run",
    "--no-pings",
    "--mute-audio",
    "--deny-permission-prompts",
    "--disable-features=DnsOverHttps,AsyncDns,NetworkPrediction,Prerender2,InterestFeedContentSuggestions",
    // Memory: a V8 heap cap per renderer, and few renderers (the process tree's RSS is watched too).
    `--js-flags=--max-old-space-size=${maxHeapMb}`,
    "--renderer-process-limit=4",
  ];
}
