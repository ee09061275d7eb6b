// Server-sent events from a fetch response. EventSource cannot POST a form (the question comes
// with its images), so the stream is read and parsed here, per the SSE format: "field: value"
// lines, a blank line ends an event, lines starting with ":" are comments (the keep-alives).

/** Yields `{ event, data, id }` for each event of the response body, as it arrives. */
export async function* readServerSentEvents(response) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let event = { event: "message", data: [], id: undefined };
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      const lines = buffer.split(/\r\n|\r|\n/);
      buffer = lines.pop();
      for (const line of lines) {
        if (line === "") {
          if (event.data.length) yield { event: event.event, data: event.data.join("\n"), id: event.id };
          event = { event: "message", data: [], id: undefined };
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon === -1 ? line : line.slice(0, colon);
        let text = colon === -1 ? "" : line.slice(colon + 1);
        if (text.startsWith(" ")) text = text.slice(1);
        if (field === "data") event.data.push(text);
        else if (field === "event") event.event = text;
        else if (field === "id") event.id = text;
      }
    }
  } finally {
    reader.releaseLock();
  }
}
