//go:build unix

package mcp

import (
	"os/exec"
	"syscall"
	"time"
)

// setProcessGroup runs the harness in its own process group, so that on a
// timeout the signal reaches the server it started too. SIGTERM first lets
// the server record the episode as a disconnect.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) }
	cmd.WaitDelay = 5 * time.Second
}

// killProcessGroup kills whatever of the harness's group is still running
// (a server it left behind).
func killProcessGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// groupAlive reports whether any process of the harness's group is left.
func groupAlive(cmd *exec.Cmd) bool {
	return cmd.Process != nil && syscall.Kill(-cmd.Process.Pid, 0) == nil
}
