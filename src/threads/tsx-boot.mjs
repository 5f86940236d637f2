// A thread's start under tsx (./boot.ts): worker threads do not inherit the main thread's loader
// on Node 20, so the thread registers tsx's loader itself, then imports its TypeScript module
// (top-level await and all) and hands on its default export (a pool's task function).
import { workerData } from 'node:worker_threads';

const { register } = await import(workerData.tsxApi);
register();
const thread = await import(workerData.threadModule);
export default thread.default;
