/** Small formatting helpers for performance messages. */

/** Bytes as a short human size: "830 B", "12.4 KB", "1.3 MB" (1 KB = 1024 bytes). */
export function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const kb = bytes / 1024;
  if (kb < 1024) return `${kb < 100 ? kb.toFixed(1) : Math.round(kb)} KB`;
  return `${(kb / 1024).toFixed(1)} MB`;
}

/** "1 script" / "3 scripts". */
export function count(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}
