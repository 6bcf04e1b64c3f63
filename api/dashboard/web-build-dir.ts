// Where the dashboard's build lives: web/dist under the package root.
import path from 'node:path';
import { packageRoot } from '../../shared/platform/runtime/package-root.js';

export const webBuildDir = (): string => path.join(packageRoot(), 'web', 'dist');
