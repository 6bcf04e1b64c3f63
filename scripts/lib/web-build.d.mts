export declare const WEB_BUILD_DIR: string;
export declare function webBuildStale(): boolean;
export declare function ensureWebBuild(opts?: { force?: boolean; quiet?: boolean }): Promise<boolean>;
