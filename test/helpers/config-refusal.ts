// The one line loadConfig refuses an environment with, as an entry point prints it; the test
// fails when the environment is accepted.
import { ConfigError, loadConfig } from '../../shared/composition/config.js';

export function configRefusal(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  throw new Error('the configuration was accepted');
}
