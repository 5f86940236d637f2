import { expect } from 'chai';
import { ConfigError, parseConfig } from '../../src/config.js';

/** The message of the ConfigError that parsing `env` raises (fails the test when it raises none, or another error). */
export function configProblem(env: Record<string, string>, readFile?: (path: string) => string): string {
  try {
    parseConfig(env, readFile);
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error('no ConfigError');
}
