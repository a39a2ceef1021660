import { useState } from "react";
import { useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { z } from "zod";
import { Field } from "./Field";

const schema = z.object({
  name: z.string().min(1, "Enter your name"),
  email: z.string().email("Enter an email address like name@example.com"),
  password: z.string().min(12, "Use at least 12 characters"),
});
type Values = z.infer<typeof schema>;

export function SignupForm({ onSubmit }: { onSubmit: (v: Values) => Promise<void> }) {
  const [show, setShow] = useState(false);
  const { register, handleSubmit, formState: { errors, isSubmitting } } = useForm<Values>({
    resolver: zodResolver(schema),
    shouldFocusError: true,
  });

  return (
    <form noValidate onSubmit={handleSubmit(onSubmit)}>
      <Field label="Full name" required autoComplete="name" error={errors.name?.message} {...register("name")} />
      <Field label="Email" type="email" required autoComplete="email" error={errors.email?.message} {...register("email")} />
      <Field
        label="Password"
        type={show ? "text" : "password"}
        required
        autoComplete="new-password"
        hint="At least 12 characters. A passphrase works well."
        error={errors.password?.message}
        {...register("password")}
      />
      <button type="button" onClick={() => setShow((s) => !s)} aria-pressed={show}>
        {show ? "Hide password" : "Show password"}
      </button>
      <button type="submit" aria-busy={isSubmitting}>Create account</button>
    </form>
  );
}
