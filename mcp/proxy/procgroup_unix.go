//go:build unix

package proxy

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup starts the upstream in a process group of its own: a
// terminal's interrupt goes to the proxy alone, which then ends the
// session and closes the upstream in order, and the upstream's own
// children can be signalled with it.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// signalProcessGroup sends SIGTERM (or SIGKILL) to the upstream's group.
func signalProcessGroup(cmd *exec.Cmd, kill bool) {
	if cmd.Process == nil {
		return
	}
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(-cmd.Process.Pid, sig)
}
