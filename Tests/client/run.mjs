// Runs one scenario of scenarios.mjs under Node, with Node's own fetch: `node run.mjs CLIENT SCENARIO ARGS`, CLIENT
// being a copy of client.js named .mjs (Node reads a .js file outside a "type": "module" package as CommonJS),
// SCENARIO an export of scenarios.mjs and ARGS its options as JSON. Prints the scenario's result as JSON.
import * as scenarios from "./scenarios.mjs";

const [clientPath, name, args = "{}"] = process.argv.slice(2);
const m = await import(new URL(clientPath, `file://${process.cwd()}/`).href);
const options = JSON.parse(args);
if (options.storage === "memory") options.storage = m.memoryStorage();
if (options.storages === "memory") options.storages = Array.from({ length: options.writers ?? 3 }, () => m.memoryStorage());
const result = await scenarios[name](m, options);
process.stdout.write(JSON.stringify(result));
