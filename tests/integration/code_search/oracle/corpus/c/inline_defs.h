/* Function definitions whose name is preceded by inline keywords,
 * attributes and macros, with struct parameters (a struct in a parameter
 * list once made the body look like a struct body, so every later
 * definition in the file read as a usage).  The first functions are from
 * Linux's include/uapi/linux/cec-funcs.h (BSD-3-Clause option of its
 * SPDX-License-Identifier: ((GPL-2.0+ WITH Linux-syscall-note) OR
 * BSD-3-Clause); Copyright 2016 Cisco Systems, Inc. and/or its
 * affiliates). */
#define CEC_MSG_ACTIVE_SOURCE 0x82
#define CEC_MSG_IMAGE_VIEW_ON 0x04
#define API_EXPORT
#define MACRO_TYPE(t) t

struct cec_msg {
	unsigned int len;
	unsigned char msg[16];
};

static __inline__ void cec_msg_active_source(struct cec_msg *msg, unsigned short phys_addr)
{
	msg->len = 4;
	msg->msg[0] |= 0xf; /* broadcast */
	msg->msg[1] = CEC_MSG_ACTIVE_SOURCE;
	msg->msg[2] = phys_addr >> 8;
	msg->msg[3] = phys_addr & 0xff;
}

static __inline__ void cec_ops_active_source(const struct cec_msg *msg,
					 unsigned short *phys_addr)
{
	*phys_addr = (msg->msg[2] << 8) | msg->msg[3];
}

static __inline__ void cec_msg_image_view_on(struct cec_msg *msg)
{
	msg->len = 2;
	msg->msg[1] = CEC_MSG_IMAGE_VIEW_ON;
}

static __inline void with_inline_underscore(struct cec_msg *msg)
{
	msg->len = 0;
}

inline int with_inline(struct cec_msg *msg)
{
	return (int)msg->len;
}

static inline int with_static_inline(const struct cec_msg *msg,
				     int extra)
{
	return (int)msg->len + extra;
}

__attribute__((unused)) static int with_attribute_first(struct cec_msg *msg)
{
	return msg->msg[0];
}

static int __attribute__((noinline)) with_attribute_between(struct cec_msg *msg)
{
	return msg->msg[1];
}

API_EXPORT int with_macro_before(struct cec_msg *msg)
{
	return msg->msg[2];
}

MACRO_TYPE(int) with_macro_type(struct cec_msg *msg)
{
	return msg->msg[3];
}

struct cec_msg *returns_struct(struct cec_msg *msg)
{
	return msg;
}

union u { int a; };
enum cec_kind { CEC_A, CEC_B };

static inline union u *returns_union(union u *p, enum cec_kind k)
{
	(void)k;
	return p;
}

/* A return type led by enum, struct or union (linux/target_core_user.h):
 * the brace is the function's body, and what follows is read afresh. */
static __inline__ enum cec_kind kind_of(__u32 v)
{
	return v ? CEC_B : CEC_A;
}

static __inline__ void after_enum_return(__u32 *v)
{
	*v = 0;
}

struct __attribute__((packed)) packed_after {
	__u8 a;
};

static __inline__ int after_packed(struct packed_after *p)
{
	return p->a;
}

/* Macros that expand to whole definitions, one a line without ';'
 * (linux/nilfs2_api.h), then a definition. */
#define CEC_FNS(flag, name) \
static __inline__ int cec_is_##name(const struct cec_msg *m) \
{ \
	return m->len & (flag); \
}

CEC_FNS(1, short)
CEC_FNS(2, long)

static __inline__ int cec_is_empty(const struct cec_msg *m)
{
	return !m->len;
}

YAML_STYLE_DECLARE(const char *)
macro_type_on_its_line(void);
