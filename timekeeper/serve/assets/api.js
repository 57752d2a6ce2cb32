// Talking to the server: JSON over fetch (an error carries the server's body and status, or says
// that the server could not be reached), and the address of a game's WebSocket.

const HEADERS = { "X-Timekeeper": "1" };

export async function api(path, options = {}) {
  let response;
  try {
    response = await fetch(path, { ...options, headers: { ...HEADERS, ...(options.headers || {}) } });
  } catch (cause) {
    throw Object.assign(new Error(`${path}: ${cause.message}`), { unreachable: true }); // no network, or no server
  }
  const type = response.headers.get("Content-Type") || "";
  const body = await (type.includes("json") ? response.json() : response.text()).catch(() => null); // cut short
  if (!response.ok || body === null) {
    const error = new Error((body && body.error) || `${response.status} ${response.statusText}`);
    Object.assign(error, { body, status: response.status, unreachable: body === null && response.ok });
    throw error;
  }
  return body;
}

export function sendJson(path, data, method = "POST") {
  return api(path, { method, body: JSON.stringify(data), headers: { "Content-Type": "application/json" } });
}

export const postJson = (path, data) => sendJson(path, data);

export function socketUrl(gameId) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  return `${scheme}://${location.host}/api/games/${gameId}/ws`;
}

export const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// A job the server works on (a render, a voice's download), asked for again until it is finished;
// `progress` sees each answer. A job that failed throws its English reason, with the code a page
// in another language says instead (error.job_failed).
export async function finished(job, next, progress = () => {}) {
  while (!job.finished) {
    progress(job);
    await pause(300);
    job = await api(next(job));
  }
  if (job.error) throw Object.assign(new Error(job.error), { body: { code: "job_failed" } });
  return job;
}
