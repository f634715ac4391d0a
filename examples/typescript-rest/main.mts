// Node entry point: node dist/main.mjs [base URL]   (default http://127.0.0.1:8000)
import { playGame } from "./play.mjs";

declare const process: { argv: string[]; exitCode?: number };

const baseUrl = process.argv[2] ?? "http://127.0.0.1:8000";
try {
  for (const step of await playGame(baseUrl)) console.log(JSON.stringify(step));
} catch (error) {
  console.error(error);
  process.exitCode = 1;
}
