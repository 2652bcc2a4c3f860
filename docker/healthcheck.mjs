// Container health probe for Docker and compose: GET a health path on this container's own port
// (OPERATIONAL_PORT where the app has one: the dashboard and back-office answer health only
// there) and exit 0 only on a 2xx answer. Plain Node (global fetch), so the runtime image needs no curl.
//   node docker/healthcheck.mjs                 -> /health/live
//   node docker/healthcheck.mjs /health/ready   -> any other path
const path = process.argv[2] ?? '/health/live';
const port = process.env.OPERATIONAL_PORT ?? process.env.PORT ?? '3000';
const timeoutMs = Number(process.env.HEALTHCHECK_TIMEOUT_MS ?? 3000);

try {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(timeoutMs) });
  process.exitCode = response.ok ? 0 : 1;
  if (!response.ok) process.stderr.write(`health ${path}: HTTP ${response.status}\n`);
} catch (error) {
  process.stderr.write(`health ${path}: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
