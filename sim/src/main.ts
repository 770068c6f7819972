import { runCli } from './cli.js';

process.exitCode = await runCli(process.argv.slice(2), { SIM_URL: process.env.SIM_URL });
