import { spawn } from "node:child_process";
import { shellWord } from "./cli.js";

/** What to type, once the output since the last answer shows `after` (a question). */
export interface PtyAnswer {
  after: string;
  /** Keys as the terminal sends them: "y\r" for y and Enter, "\u0003" for Ctrl-C. */
  send: string;
}

export interface PtyOutcome {
  code: number | null;
  /** stdout and stderr as the terminal showed them, typed echoes included, with "\n" line ends. */
  screen: string;
}

/**
 * Runs `argv` on a real pseudo-terminal (util-linux `script`, which every Debian has), typing
 * each answer when its question shows, as a person would: stdin, stdout and stderr are the
 * terminal, so Ctrl-C is the terminal's SIGINT and an answer's Enter is echoed. The child is
 * killed after `killMs`, so a hang fails with what the screen showed.
 */
export function runInPty(
  argv: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; answers: readonly PtyAnswer[]; killMs: number },
): Promise<PtyOutcome> {
  return new Promise((resolve, reject) => {
    // `exec`: the program itself is the terminal's foreground process, not a shell around it.
    const command = `exec ${argv.map(shellWord).join(" ")}`;
    const child = spawn("script", ["--quiet", "--return", "--command", command, "/dev/null"], {
      cwd: options.cwd,
      env: options.env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let screen = "";
    let searchedFrom = 0;
    const pending = [...options.answers];
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      screen += chunk;
      for (let next = pending[0]; next; next = pending[0]) {
        const at = screen.indexOf(next.after, searchedFrom);
        if (at < 0) break;
        searchedFrom = at + next.after.length;
        pending.shift();
        child.stdin.write(next.send);
      }
    });
    let errors = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      errors += chunk;
    });
    const timer = setTimeout(() => {
      screen += `\n[killed after ${options.killMs} ms]`;
      child.kill("SIGKILL");
    }, options.killMs);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      const unanswered = pending.map((answer) => JSON.stringify(answer.after)).join(", ");
      resolve({
        code,
        screen: `${screen.replaceAll("\r\n", "\n")}${errors ? `\n[script: ${errors}]` : ""}${unanswered ? `\n[never asked: ${unanswered}]` : ""}`,
      });
    });
  });
}
