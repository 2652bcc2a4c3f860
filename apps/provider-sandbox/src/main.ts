import { createSandboxApp } from './create-sandbox-app.js';
import { sandboxOptionsFromEnvironment } from './sandbox-options.js';

const app = await createSandboxApp(sandboxOptionsFromEnvironment(process.env));
app.enableShutdownHooks();
await app.listen(Number(process.env.PORT ?? 3100));
