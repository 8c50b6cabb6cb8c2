// The transcript renderer (runs inside the webview). Placeholder until the transcript issue.
export {};
