#!/usr/bin/env node
// The `openmq` command. It runs the TypeScript sources through tsx (a runtime dependency of the
// service already), so a clone needs no build step and `npx openmq` works from it at once.
import { register } from 'tsx/esm/api';

register();
await import('../main.ts');
